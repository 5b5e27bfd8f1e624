// The built-in kinds kube-apiserver 1.31 serves whose version is deprecated in 1.31, and the Warning header text
// (k8s.io/apiserver/pkg/endpoints/deprecation: WarningMessage). Hand-checked facts from the
// `+k8s:prerelease-lifecycle-gen` tags of k8s.io/api 1.31 (introduced=X gives deprecated X+3 and removed X+6 unless
// tagged otherwise; replacement tags where they exist). A kind is deprecated when 1.31 >= its deprecated release;
// kinds introduced at 1.29 or later (networking/v1beta1, storage/v1beta1 and v1alpha1, coordination/v1alpha1,
// resource/v1alpha3, storagemigration/v1alpha1) are not deprecated yet and are absent.

export interface DeprecatedKind {
  /** "1.29" */
  readonly deprecated: string;
  /** "1.32": the removed_release label and the k8s.io/removed-release annotation; '' when none is planned. */
  readonly removed: string;
  /** "flowcontrol.apiserver.k8s.io/v1 FlowSchema" */
  readonly replacement?: string;
}

const CURRENT_RELEASE = [1, 31] as const;

// key: "<group>/<version> <Kind>"
const DEPRECATED: Readonly<Record<string, DeprecatedKind>> = {
  // introduced=1.26, deprecated=1.29, removed=1.32, replacement=flowcontrol.apiserver.k8s.io,v1,*
  'flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema': { deprecated: '1.29', removed: '1.32', replacement: 'flowcontrol.apiserver.k8s.io/v1 FlowSchema' },
  'flowcontrol.apiserver.k8s.io/v1beta3 PriorityLevelConfiguration': { deprecated: '1.29', removed: '1.32', replacement: 'flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration' },
  // introduced=1.28 (served with --runtime-config=admissionregistration.k8s.io/v1beta1=true)
  'admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy': { deprecated: '1.31', removed: '1.34', replacement: 'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy' },
  'admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicyBinding': { deprecated: '1.31', removed: '1.34', replacement: 'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding' },
  // introduced=1.26 (alpha versions keep the computed releases; alpha is exempt from removal at serving time)
  'admissionregistration.k8s.io/v1alpha1 ValidatingAdmissionPolicy': { deprecated: '1.29', removed: '1.32' },
  'admissionregistration.k8s.io/v1alpha1 ValidatingAdmissionPolicyBinding': { deprecated: '1.29', removed: '1.32' },
  // introduced=1.27
  'authentication.k8s.io/v1beta1 SelfSubjectReview': { deprecated: '1.30', removed: '1.33', replacement: 'authentication.k8s.io/v1 SelfSubjectReview' },
  // introduced=1.26
  'authentication.k8s.io/v1alpha1 SelfSubjectReview': { deprecated: '1.29', removed: '1.32' },
  // introduced=1.27
  'certificates.k8s.io/v1alpha1 ClusterTrustBundle': { deprecated: '1.30', removed: '1.33' },
  // core/v1's ComponentStatus carries its own tag (deprecated=1.19) and no planned removal.
  'v1 ComponentStatus': { deprecated: '1.19', removed: '' },
  // introduced=1.20
  'internal.apiserver.k8s.io/v1alpha1 StorageVersion': { deprecated: '1.23', removed: '1.26' },
};

function atOrBefore(release: string): boolean {
  const [major, minor] = release.split('.').map(Number);
  return major! < CURRENT_RELEASE[0] || (major === CURRENT_RELEASE[0] && minor! <= CURRENT_RELEASE[1]);
}

export function deprecatedKind(group: string, version: string, kind: string): DeprecatedKind | undefined {
  const facts = DEPRECATED[`${group ? `${group}/${version}` : version} ${kind}`];
  return facts && atOrBefore(facts.deprecated) ? facts : undefined;
}

/** deprecation.WarningMessage */
export function deprecationWarning(group: string, version: string, kind: string, facts: DeprecatedKind): string {
  let msg = `${group ? `${group}/${version}` : version} ${kind} is deprecated in v${facts.deprecated}+`;
  if (facts.removed) msg = `${msg}, unavailable in v${facts.removed}+`;
  if (facts.replacement) msg = `${msg}; use ${facts.replacement}`;
  return msg;
}
