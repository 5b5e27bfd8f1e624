// jose loads on first use (start-up time): a server that never sees a JWT never pays for it.

let jose: Promise<typeof import('jose')> | undefined;

export function loadJose(): Promise<typeof import('jose')> {
  return (jose ??= import('jose'));
}
