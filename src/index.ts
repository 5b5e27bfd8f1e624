// Capstan as a library: start a throwaway (or persistent) API server in-process, as envtest does.
//
//   const capstan = await startCapstan();            // memory storage, free port, temp data dir
//   fs.writeFileSync('kubeconfig', capstan.kubeconfig);
//   ...
//   await capstan.close();                           // also removes the temp data dir

export { startCapstan, ConfigError } from './cli/start.ts';
export type { Capstan, CapstanOptions } from './cli/start.ts';
export { createLogger, silentLogger } from './server/log.ts';
export type { Logger, LoggerOptions } from './server/log.ts';
export type { ApiServer, ApiServerOptions, HealthCheck } from './server/types.ts';
export type { UserInfo } from './auth/user.ts';
export type { Authorizer, AuthzAttributes, AuthzResult } from './auth/authz/types.ts';
export type { AuthorizerFactory } from './auth/authz/modes.ts';
export type { CrdSource, InstallCrdsOptions } from './testing/install-crds.ts';
export type { TestControls, ForkedServer, LogicalCluster } from './testing/controls.ts';
export type { FaultRule, FaultAction } from './testing/faults.ts';
export type { RequestQuery, RequestRecord } from './testing/recorder.ts';
export type { CustomResourceDefinition } from './registry/apiextensions/crd-types.ts';
export type { InProcessAdmission, InProcessHook, InProcessResponse } from './admission/webhook/in-process.ts';
