// The small defaulting plugins: DefaultStorageClass (PVCs without a class get the default StorageClass),
// DefaultIngressClass (Ingresses without a class get the default IngressClass), DefaultTolerationSeconds (pods
// tolerate not-ready and unreachable nodes for 300 s), and Priority (a pod's priority from its PriorityClass, or
// the global default; one PriorityClass at most marked globalDefault).

import { forbiddenError } from '../../registry/store-errors.ts';
import { createInformer } from '../informer.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';

type Obj = Record<string, any>;

/** The class objects a plugin reads on its creates, from a lister (a watched map) as kube's plugins read them. */
export function classLister(registry: Registry, group: string, version: string, resource: string): { items(): Promise<readonly KubeObject[]>; stop(): void } {
  const informer = createInformer(registry, group, version, resource);
  return { items: async () => (informer.now() ?? (await informer.snapshot())).items, stop: () => informer.stop() };
}

/** The default of a class list: the newest marked by the annotation (kube picks the most recent), by name on ties. */
function defaultClass(items: readonly KubeObject[], annotation: string): KubeObject | undefined {
  const marked = items.filter((i) => i.metadata.annotations?.[annotation] === 'true');
  marked.sort((a, b) => (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  return marked[0];
}

const is = (a: AdmissionAttributes, group: string, resource: string) => a.resource.group === group && a.resource.resource === resource && a.subResource === '' && a.operation === 'CREATE' && !!a.object;

/** What a default-class plugin sets: the spec field of the class name, unless it or the legacy annotation is set. */
interface ClassDefaulting {
  readonly name: string;
  readonly object: { readonly group: string; readonly resource: string };
  readonly classes: { readonly group: string; readonly resource: string };
  readonly specField: string;
  readonly legacyAnnotation: string;
  readonly defaultAnnotation: string;
}

function classDefaulter(registry: Registry, c: ClassDefaulting): AdmissionPlugin {
  const classes = classLister(registry, c.classes.group, 'v1', c.classes.resource);
  const setDefault = async (a: AdmissionAttributes): Promise<void> => {
    const spec = (a.object!.spec ??= {}) as Obj;
    if (spec[c.specField] !== undefined && spec[c.specField] !== null) return;
    if (a.object!.metadata.annotations?.[c.legacyAnnotation] !== undefined) return;
    const def = defaultClass(await classes.items(), c.defaultAnnotation);
    if (def) spec[c.specField] = def.metadata.name;
  };
  return {
    name: c.name,
    close: classes.stop,
    handles: (op) => op === 'CREATE',
    admit: (a) => (is(a, c.object.group, c.object.resource) ? setDefault(a) : undefined),
  };
}

export function defaultStorageClass(registry: Registry): AdmissionPlugin {
  return classDefaulter(registry, {
    name: 'DefaultStorageClass',
    object: { group: '', resource: 'persistentvolumeclaims' },
    classes: { group: 'storage.k8s.io', resource: 'storageclasses' },
    specField: 'storageClassName',
    legacyAnnotation: 'volume.beta.kubernetes.io/storage-class',
    defaultAnnotation: 'storageclass.kubernetes.io/is-default-class',
  });
}

export function defaultIngressClass(registry: Registry): AdmissionPlugin {
  return classDefaulter(registry, {
    name: 'DefaultIngressClass',
    object: { group: 'networking.k8s.io', resource: 'ingresses' },
    classes: { group: 'networking.k8s.io', resource: 'ingressclasses' },
    specField: 'ingressClassName',
    legacyAnnotation: 'kubernetes.io/ingress.class',
    defaultAnnotation: 'ingressclass.kubernetes.io/is-default-class',
  });
}

const TOLERATED = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

export function defaultTolerationSeconds(): AdmissionPlugin {
  return {
    name: 'DefaultTolerationSeconds',
    handles: (op) => op === 'CREATE',
    admit(a) {
      if (!is(a, '', 'pods')) return;
      const spec = (a.object!.spec ??= {}) as Obj;
      const tolerations: Obj[] = Array.isArray(spec.tolerations) ? spec.tolerations : [];
      const covers = (key: string) => tolerations.some((t) => (t.effect === 'NoExecute' || !t.effect) && (t.key === key || (t.operator === 'Exists' && !t.key)));
      const added = TOLERATED.filter((k) => !covers(k)).map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }));
      if (added.length) spec.tolerations = [...tolerations, ...added];
    },
  };
}

export function priority(registry: Registry): AdmissionPlugin {
  const priorityClasses = classLister(registry, 'scheduling.k8s.io', 'v1', 'priorityclasses');
  return {
    name: 'Priority',
    close: priorityClasses.stop,
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    admit(a) {
      return is(a, '', 'pods') ? resolvePriority(a) : undefined;
    },
    validate(a) {
      const pc = a.object;
      if (a.resource.group !== 'scheduling.k8s.io' || a.resource.resource !== 'priorityclasses' || a.subResource !== '' || pc?.globalDefault !== true) return;
      return onlyOneDefault(a, pc);
    },
  };

  /** validatePriorityClass: a second class may not be made the global default, on create or update. */
  async function onlyOneDefault(a: AdmissionAttributes, pc: KubeObject): Promise<void> {
    // getDefaultPriorityClass: of several (a race), the one of lowest value.
    const defaults = (await priorityClasses.items()).filter((c) => c.globalDefault === true).sort((x, y) => Number(x.value ?? 0) - Number(y.value ?? 0));
    const current = defaults[0];
    if (current && (a.operation === 'CREATE' || current.metadata.name !== pc.metadata.name)) {
      throw forbiddenError(
        { group: 'scheduling.k8s.io', resource: 'priorityclasses' },
        pc.metadata.name || a.name,
        `PriorityClass ${current.metadata.name} is marked as default. Only one default can exist`,
      );
    }
  }

  async function resolvePriority(a: AdmissionAttributes): Promise<void> {
    const spec = (a.object!.spec ??= {}) as Obj;
    const classes = await priorityClasses.items();
    const name: string | undefined = spec.priorityClassName || undefined;
    const m = a.object!.metadata;
    const podName = m.name || m.generateName || a.name;
    let value = 0;
    let preemption: string | undefined;
    if (name) {
      const pc = classes.find((c) => c.metadata.name === name);
      if (!pc) throw forbiddenError({ group: '', resource: 'pods' }, podName, `no PriorityClass with name ${name} was found`);
      value = Number(pc.value ?? 0);
      preemption = pc.preemptionPolicy as string | undefined;
    } else {
      const global = classes.filter((c) => c.globalDefault === true).sort((x, y) => Number(x.value ?? 0) - Number(y.value ?? 0))[0];
      if (global) {
        spec.priorityClassName = global.metadata.name;
        value = Number(global.value ?? 0);
        preemption = global.preemptionPolicy as string | undefined;
      }
    }
    if (spec.priority !== undefined && spec.priority !== null && spec.priority !== value) {
      throw forbiddenError({ group: '', resource: 'pods' }, podName, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`);
    }
    spec.priority = value;
    if (preemption) spec.preemptionPolicy = preemption;
    else spec.preemptionPolicy ??= 'PreemptLowerPriority';
  }
}
