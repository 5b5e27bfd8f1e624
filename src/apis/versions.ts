// API version ordering as kube-apiserver sorts versions (k8s.io/apimachinery/pkg/version).

const kubeVersion = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * version.CompareKubeAwareVersionStrings as a sort comparator (negative: a first): GA before beta before alpha,
 * higher numbers first, then versions that do not look like kube versions, in name order.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const ma = kubeVersion.exec(a);
  const mb = kubeVersion.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const stability = (m: RegExpExecArray) => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  if (stability(ma) !== stability(mb)) return stability(mb) - stability(ma);
  if (Number(ma[1]) !== Number(mb[1])) return Number(mb[1]) - Number(ma[1]);
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}
