// PodTemplates (pod template defaults and validation, printPodTemplate).

import { buildStrategy } from '../generic.ts';
import { ensureObj, getPath } from '../object.ts';
import { column, containerCells, formatLabels } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { defaultPodTemplate } from './pod-defaults.ts';
import { validatePodTemplateSpec } from './pod-validation.ts';
import { templateUpdateOptions } from './pod-validation-options.ts';
import { generationChanged, podTemplateWarnings } from './pod-warnings.ts';

export function podTemplateFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      podTemplate: (obj) => obj.template,
      defaults(obj) {
        defaultPodTemplate(ensureObj(obj, 'template'));
      },
      validate: (obj) => validatePodTemplateSpec(obj.template, 'template', rules.featureGates),
      validateUpdate: (obj, old) => validatePodTemplateSpec(obj.template, 'template', rules.featureGates, templateUpdateOptions(old.template)),
      warnings: (obj, old) => (!old || generationChanged(obj, old) ? podTemplateWarnings(obj.template, 'template') : []),
    }),
    printerColumns: [
      column('Containers', 'string', 'Names of each container in the template.', (o) => containerCells(getPath(o, 'template', 'spec')).names),
      column('Images', 'string', 'Images referenced by each container in the template.', (o) => containerCells(getPath(o, 'template', 'spec')).images),
      column('Pod Labels', 'string', 'The labels of the template.', (o) => formatLabels(getPath(o, 'template', 'metadata', 'labels'))),
    ],
    selectableFields: {},
  };
}
