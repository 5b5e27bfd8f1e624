// Image pulls that fail, as the containers test control scripts them (`imagePull: false`): the kubelet's image
// manager fails the pull with the container runtime's error (ErrImagePull), then waits out its backoff (10 s doubling
// to 5 min on the server clock, ImagePullBackOff) before it pulls again. The container waits meanwhile, and starts
// once a pull succeeds (the rule removed, or set to true).

import { inBackoffSince, nextBackoff, type Backoff, type KubeletEvent } from './container-lifecycle.ts';

/** The reference containerd resolves an image name to: docker.io and its library for bare names, `latest` by default. */
export function imageReference(image: string): string {
  const slash = image.indexOf('/');
  const first = slash < 0 ? '' : image.slice(0, slash);
  const hasRegistry = first.includes('.') || first.includes(':') || first === 'localhost';
  let ref = hasRegistry ? image : `docker.io/${slash < 0 ? 'library/' : ''}${image}`;
  const lastPart = ref.slice(ref.lastIndexOf('/') + 1);
  if (!lastPart.includes(':') && !lastPart.includes('@')) ref += ':latest';
  return ref;
}

/** containerd's answer for an image that does not exist, as the kubelet reports it. */
export function pullError(image: string): string {
  const ref = imageReference(image);
  return `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`;
}

export interface PullStep {
  readonly reason: 'ErrImagePull' | 'ImagePullBackOff';
  readonly message: string;
  readonly events: KubeletEvent[];
  /** The backoff entry after a failed pull. */
  readonly backoff?: Backoff;
  /** When to look again, on the server clock. */
  readonly wake: number;
}

/** How long a failed pull shows as ErrImagePull before the backoff shows (the kubelet's next sync of the pod). */
export const ERR_IMAGE_PULL_SHOWN_MS = 1000;

/** One look of the image manager at a container whose pulls fail: a pull, or the wait of its backoff. */
export function pullStep(container: string, image: string, entry: Backoff | undefined, now: number): PullStep {
  if (entry && now - entry.lastUpdate < ERR_IMAGE_PULL_SHOWN_MS) return { reason: 'ErrImagePull', message: pullError(image), events: [], wake: entry.lastUpdate + ERR_IMAGE_PULL_SHOWN_MS };
  if (entry && inBackoffSince(entry, entry.lastUpdate, now)) {
    const message = `Back-off pulling image "${image}"`;
    return {
      reason: 'ImagePullBackOff',
      message,
      events: [
        { type: 'Normal', reason: 'BackOff', message, container },
        { type: 'Warning', reason: 'Failed', message: 'Error: ImagePullBackOff', container },
      ],
      wake: entry.lastUpdate + entry.backoffMs,
    };
  }
  const message = pullError(image);
  return {
    reason: 'ErrImagePull',
    message,
    events: [
      { type: 'Normal', reason: 'Pulling', message: `Pulling image "${image}"`, container },
      { type: 'Warning', reason: 'Failed', message: `Failed to pull image "${image}": ${message}`, container },
      { type: 'Warning', reason: 'Failed', message: 'Error: ErrImagePull', container },
    ],
    backoff: nextBackoff(entry, now),
    wake: now + ERR_IMAGE_PULL_SHOWN_MS,
  };
}

// distribution/reference's grammar (ReferenceRegexp): [domain[:port]/]path-component(/path-component)*[:tag][@digest].
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const REFERENCE = new RegExp(`^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::[\\w][\\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$`);

/**
 * Why the kubelet cannot use an image name (applyDefaultImageTag through reference.ParseNormalizedNamed), in its
 * words; undefined for a name it takes. The container then waits in InvalidImageName.
 */
export function imageNameError(image: string): string | undefined {
  const why = ((): string | undefined => {
    if (/^[a-f0-9]{64}$/.test(image)) return `invalid repository name (${image}), cannot specify 64-byte hexadecimal strings`;
    const slash = image.indexOf('/');
    const first = slash < 0 ? '' : image.slice(0, slash);
    const docker = slash < 0 || (!/[.:]/.test(first) && first !== 'localhost' && first.toLowerCase() === first);
    let remote = docker ? image : image.slice(slash + 1);
    if (docker && !remote.includes('/')) remote = `library/${remote}`;
    const tagAt = remote.indexOf(':');
    if (tagAt >= 0) remote = remote.slice(0, tagAt);
    if (remote.toLowerCase() !== remote) return `invalid reference format: repository name (${remote}) must be lowercase`;
    const m = REFERENCE.exec(image);
    if (!m) return 'invalid reference format';
    if (m[1]!.length > 255) return 'repository name must not be more than 255 characters';
    return undefined;
  })();
  return why === undefined ? undefined : `Failed to apply default image tag "${image}": couldn't parse image name "${image}": ${why}`;
}
