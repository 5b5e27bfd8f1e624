// corev1 NodeSelectorTerms against a node: what a pod's required node affinity and a PersistentVolume's node
// affinity both match (component-helpers' nodeaffinity).

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** The parts of a node a term reads. */
interface NodeLike {
  readonly metadata: { readonly name?: string; readonly labels?: Readonly<Record<string, string>> };
}

/** A NodeSelectorRequirement against a node's label (matchExpressions) or its name (matchFields). */
function requirementMatches(req: Obj, value: string | undefined): boolean {
  const values = ((req.values as unknown[] | undefined) ?? []).map(String);
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1 || !/^-?\d+$/.test(value) || !/^-?\d+$/.test(values[0]!)) return false;
      const [have, bound] = [BigInt(value), BigInt(values[0]!)];
      return req.operator === 'Gt' ? have > bound : have < bound;
    }
    default:
      return false;
  }
}

/** A NodeSelectorTerm: all its requirements hold (an empty term matches no node). */
export function nodeSelectorTermMatches(term: Obj, node: NodeLike): boolean {
  const expressions = ((term.matchExpressions as unknown[] | undefined) ?? []).map(asObj);
  const fields = ((term.matchFields as unknown[] | undefined) ?? []).map(asObj);
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  return (
    expressions.every((r) => requirementMatches(r, Object.hasOwn(labels, String(r.key)) ? labels[String(r.key)] : undefined)) &&
    fields.every((r) => r.key === 'metadata.name' && requirementMatches(r, node.metadata.name))
  );
}

/** A NodeSelector (any of its terms); undefined or without nodeSelectorTerms: every node. */
export function nodeSelectorMatches(selector: unknown, node: NodeLike): boolean {
  const s = asObj(selector);
  if (!Object.hasOwn(s, 'nodeSelectorTerms')) return true;
  return ((s.nodeSelectorTerms as unknown[] | undefined) ?? []).map(asObj).some((t) => nodeSelectorTermMatches(t, node));
}
