// Kubernetes format library (k8s.io/apiserver/pkg/cel/library/format.go, in the 1.31 environment): named string
// formats and their validation, e.g. format.dns1123Label().validate(self.name) is optional.none() when valid and the
// list of kube's messages otherwise; format.named('uuid') looks one up by name.

import { CelScalar, celList } from '@bufbuild/cel';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../apis/labels.ts';
import { isDNS1035Label } from '../../registry/validation/names.ts';
import { OpaqueValue, func, opaqueMethod, OPAQUE } from '../opaque.ts';
import { OptionalValue, NONE } from './optionals.ts';
import { requestURIError } from './urls.ts';

const { STRING } = CelScalar;

// A generateName may end in '-': kube masks it before checking (NameIsDNS* with prefix=true)
const masked = (s: string): string => (s.length > 1 && s.endsWith('-') ? `${s.slice(0, -2)}a` : s);

const dateRe = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTimeRe = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function validDate(y: string, m: string, d: string): boolean {
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 && date.getUTCDate() === Number(d);
}

const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label: (s) => isDNS1123Label(s),
  dns1123Subdomain: (s) => isDNS1123Subdomain(s),
  dns1035Label: (s) => isDNS1035Label(s),
  qualifiedName: (s) => isQualifiedName(s),
  dns1123LabelPrefix: (s) => isDNS1123Label(masked(s)),
  dns1123SubdomainPrefix: (s) => isDNS1123Subdomain(masked(s)),
  dns1035LabelPrefix: (s) => isDNS1035Label(masked(s)),
  labelValue: (s) => isValidLabelValue(s),
  uri: (s) => {
    const e = requestURIError(s);
    return e === undefined ? [] : [e];
  },
  uuid: (s) => (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s) ? [] : ['does not match the UUID format']),
  byte: (s) => (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s) ? [] : ['invalid base64']),
  date: (s) => {
    const m = dateRe.exec(s);
    return m && validDate(m[1], m[2], m[3]) ? [] : ['invalid date'];
  },
  datetime: (s) => {
    const m = dateTimeRe.exec(s);
    return m && validDate(m[1], m[2], m[3]) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 61 ? [] : ['invalid datetime'];
  },
};

class FormatValue extends OpaqueValue {
  readonly typeName = 'kubernetes.NamedFormat';
  readonly name: string;
  constructor(name: string) {
    super();
    this.name = name;
  }
  protected identity(): string {
    return this.name;
  }
}

export const formatFuncs = [
  func('format.named', [STRING], OPAQUE, (name) => (Object.hasOwn(FORMATS, name as string) ? new OptionalValue(new FormatValue(name as string) as never) : NONE)),
  ...Object.keys(FORMATS).map((name) => func(`format.${name}`, [], OPAQUE, () => new FormatValue(name))),
  opaqueMethod('validate', FormatValue, [STRING], OPAQUE, (f, s) => {
    const errs = FORMATS[f.name](s as string);
    return errs.length === 0 ? NONE : new OptionalValue(celList(errs));
  }),
];
