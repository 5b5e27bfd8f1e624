// The authenticated identity of a request (k8s.io/apiserver/pkg/authentication/user.Info).

export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ANONYMOUS_USER = 'system:anonymous';
export const SYSTEM_MASTERS = 'system:masters';

/** The in-process identity controllers write with. */
export const LOOPBACK_USER: UserInfo = { name: 'system:apiserver', uid: 'capstan-loopback', groups: [SYSTEM_MASTERS, ALL_AUTHENTICATED] };
