// toolscored/jest/setup registers toMatchToolSnapshot (its types come with "toolscored").
import 'toolscored';
export {};
