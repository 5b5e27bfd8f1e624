// /version: the kube version.Info this server claims (Kubernetes v1.31.0).

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

const ARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };

export function versionInfo(): VersionInfo {
  return {
    major: '1',
    minor: '31',
    gitVersion: 'v1.31.0',
    // Capstan is not built from kube's tree; these name what actually runs.
    gitCommit: 'capstan',
    gitTreeState: 'clean',
    buildDate: '2024-08-13T07:28:49Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'node',
    platform: `${process.platform}/${ARCH[process.arch] ?? process.arch}`,
  };
}
