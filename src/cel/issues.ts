// Compile problems rendered as cel-go renders its issues:
//   ERROR: <input>:1:6: undefined field 'foo'
//    | self.foo > 0
//    | .....^

function location(source: string, offset: number): { line: number; col: number; text: string } {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const lineEnd = source.indexOf('\n', lineStart);
  return { line, col: offset - lineStart + 1, text: source.slice(lineStart, lineEnd < 0 ? undefined : lineEnd) };
}

export function formatIssue(source: string, offset: number, message: string): string {
  const at = location(source, Math.max(0, Math.min(offset, source.length)));
  return `ERROR: <input>:${at.line}:${at.col}: ${message}\n | ${at.text}\n | ${'.'.repeat(at.col - 1)}^`;
}

/** A @bufbuild/cel parse error ("<input>:1:10: found > but expecting end of input") in cel-go's shape. */
export function formatSyntaxError(source: string, e: Error): string {
  const m = /^<input>:(\d+):(\d+): ([\s\S]*)$/.exec(e.message);
  if (!m) return `ERROR: <input>:1:1: Syntax error: ${e.message}`;
  const line = Number(m[1]);
  const col = Number(m[2]);
  const lines = source.split('\n');
  let offset = col - 1;
  for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
  return formatIssue(source, offset, `Syntax error: ${m[3]}`);
}
