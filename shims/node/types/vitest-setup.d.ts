// toolscored/vitest/setup registers toMatchToolSnapshot (its types come with "toolscored").
import 'toolscored';
export {};
