// Runtime cost accounting for CEL evaluation. @bufbuild/cel tracks no cost, so the environment wraps every function
// (one unit per call, plus a size-proportional charge for string and list work, as cel-go's cost model does) and the
// typed JSON values charge one unit per field, element or entry they hand out. The figures approximate cel-go's
// actual cost; the limits (k8s.io/apiserver/pkg/apis/cel/config.go) are kube's.

/** Cost limit of one expression evaluation (celconfig.PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;
/** Cost budget of all CRD rules on one custom resource (celconfig.RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** Largest estimated cost of one expression accepted at CRD write time (StaticEstimatedCostLimit). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Largest estimated cost of all expressions of one CRD schema (StaticEstimatedCRDCostLimit). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

/** Thrown (and turned into an evaluation error) when an evaluation goes over its limit. */
export class CostLimitExceeded extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
    this.name = 'CostLimitExceeded';
  }
}

/** The meter of the evaluation running now (evaluation is synchronous, so one suffices). */
export const meter = { cost: 0, limit: Number.POSITIVE_INFINITY };

export function charge(units: number): void {
  meter.cost += units;
  if (meter.cost > meter.limit) throw new CostLimitExceeded();
}

/** cel-go charges traversals of strings and lists at 0.1 per byte or element. */
export function traversalCost(size: number): number {
  return Math.ceil(size * 0.1);
}
