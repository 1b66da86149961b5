// toolscored/vitest/setup registers toMatchToolSnapshot on Vitest's expect;
// reference these types (tsconfig "types": ["toolscored/vitest/setup"], or
// /// <reference types="toolscored/vitest/setup" />) to type the matcher.
import type { ToolSnapshotMatchers } from 'toolscored';
import 'vitest';

declare module 'vitest' {
  interface Assertion<T = any> extends ToolSnapshotMatchers<void> {}
  interface AsymmetricMatchersContaining extends ToolSnapshotMatchers {}
}
