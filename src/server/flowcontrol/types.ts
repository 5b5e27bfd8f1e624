// The flowcontrol.apiserver.k8s.io/v1 shapes API Priority and Fairness works from (plain data, as stored).

export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  user?: { name: string };
  group?: { name: string };
  serviceAccount?: { namespace: string; name: string };
}

export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface PolicyRulesWithSubjects {
  subjects: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export interface FlowSchemaSpec {
  priorityLevelConfiguration: { name: string };
  matchingPrecedence?: number;
  distinguisherMethod?: { type: 'ByUser' | 'ByNamespace' };
  rules?: PolicyRulesWithSubjects[];
}

export interface QueuingConfiguration {
  queues?: number;
  handSize?: number;
  queueLengthLimit?: number;
}

export interface PriorityLevelSpec {
  type: 'Exempt' | 'Limited';
  limited?: {
    nominalConcurrencyShares?: number;
    lendablePercent?: number;
    borrowingLimitPercent?: number;
    limitResponse?: { type: 'Queue' | 'Reject'; queuing?: QueuingConfiguration };
  };
  exempt?: { nominalConcurrencyShares?: number; lendablePercent?: number };
}

export interface FlowSchema {
  metadata: { name: string; uid?: string; annotations?: Record<string, string> };
  spec: FlowSchemaSpec;
}

export interface PriorityLevelConfiguration {
  metadata: { name: string; uid?: string; annotations?: Record<string, string> };
  spec: PriorityLevelSpec;
}
