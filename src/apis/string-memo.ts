// Results of a function of one string (a request header, a pattern) kept in a map that is emptied when full:
// clients repeat the same few values, and a flood of distinct ones costs a bounded amount of memory.

export function memoizeString<T>(fn: (key: string) => T, limit: number): (key: string) => T {
  const results = new Map<string, T>();
  return (key) => {
    let result = results.get(key);
    if (result === undefined && !results.has(key)) {
      if (results.size >= limit) results.clear();
      result = fn(key);
      results.set(key, result);
    }
    return result as T;
  };
}
