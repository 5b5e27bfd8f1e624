// Run-time overload dispatch for planned programs. @bufbuild/cel's function group tries each overload in turn, and
// each overload works out the CEL type of every argument again (a fresh type object for each list or map): for
// `size(object.data)` that is four type checks of a map before the map overload takes it. Here each argument's
// kind is read once, without allocating, and only the overload whose parameters take it is called. Values the
// fast path does not know (protobuf messages, Any, type values) go to the library's own group, unchanged.

import { CelScalar, isCelList, isCelMap, isCelUint } from '@bufbuild/cel';
import type { CelEnv, CelFunc, CelType, CelValue } from '@bufbuild/cel';

type Group = NonNullable<ReturnType<CelEnv['funcs']['find']>>;
type CelResult = ReturnType<Group['call']>;

/** The name of a value's CEL type where it is a plain value ('' for a message, Any, or type value). */
export function typeNameOf(v: CelValue): string {
  switch (typeof v) {
    case 'bigint':
      return 'int';
    case 'boolean':
      return 'bool';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'object':
      if (v === null) return 'null_type';
      if (v instanceof Uint8Array) return 'bytes';
      if (isCelList(v)) return 'list';
      if (isCelMap(v)) return 'map';
      if (isCelUint(v)) return 'uint';
  }
  return '';
}

/** Whether a parameter of type t takes a value whose type is named so (the library's isSubtypeOf, by name). */
function takes(t: CelType, name: string): boolean {
  return t === CelScalar.DYN || t.name === name;
}

interface Overload {
  readonly func: CelFunc;
  readonly target: CelType | undefined;
  readonly params: readonly CelType[];
}

function dispatcher(group: Group): Group {
  const overloads: Overload[] = [...group].map((func) => ({ func, target: func.target, params: func.arguments }));
  const names: string[] = [];
  const fast = {
    name: group.name,
    [Symbol.iterator]: () => group[Symbol.iterator](),
    call(id: number, target: CelValue | undefined, args: CelValue[]): CelResult {
      const targetName = target === undefined ? undefined : typeNameOf(target);
      if (targetName === '') return group.call(id, target, args);
      for (let i = 0; i < args.length; i++) {
        const n = typeNameOf(args[i]);
        if (n === '') return group.call(id, target, args);
        names[i] = n;
      }
      next: for (const o of overloads) {
        if (o.params.length !== args.length) continue;
        if (o.target === undefined ? targetName !== undefined : targetName === undefined || !takes(o.target, targetName)) continue;
        for (let i = 0; i < args.length; i++) if (!takes(o.params[i], names[i])) continue next;
        const r = o.func.call(id, target, args);
        if (r !== undefined) return r;
      }
      return undefined;
    },
  };
  return fast as unknown as Group;
}

/** An environment for planning: env's functions, each name's overloads dispatched as above. */
export function dispatchingEnv(env: CelEnv): CelEnv {
  const groups = new Map<string, Group | undefined>();
  const funcs = {
    find(name: string): Group | undefined {
      if (!groups.has(name)) {
        const group = env.funcs.find(name);
        groups.set(name, group && dispatcher(group));
      }
      return groups.get(name);
    },
    [Symbol.iterator]: () => env.funcs[Symbol.iterator](),
  };
  return { namespace: env.namespace, registry: env.registry, funcs } as unknown as CelEnv;
}
