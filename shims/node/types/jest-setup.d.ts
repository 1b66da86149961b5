// toolscored/jest/setup registers toMatchToolSnapshot on Jest's expect. The
// global expect (@types/jest) is typed by "toolscored" itself; reference
// these types for the expect of @jest/globals.
import type { ToolSnapshotMatchers } from 'toolscored';
import 'expect';

declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> extends ToolSnapshotMatchers<R> {}
}
