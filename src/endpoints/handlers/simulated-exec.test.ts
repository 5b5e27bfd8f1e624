import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execStatus, unableToUpgrade } from './simulated-exec.ts';

test("the error channel's Status: Success, NonZeroExitCode with the code as its ExitCode cause, the translator's internal error", () => {
  assert.equal(execStatus(['ls'], 0), '{"metadata":{},"status":"Success"}');
  assert.equal(
    execStatus(['sh', '-c', 'exit 3'], 3),
    '{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}',
  );
  assert.equal(
    unableToUpgrade('app'),
    '{"metadata":{},"status":"Failure","message":"Internal error occurred: unable to upgrade connection: container not found (\\"app\\")","reason":"InternalError","details":{"causes":[{"message":"unable to upgrade connection: container not found (\\"app\\")"}]},"code":500}',
  );
});
