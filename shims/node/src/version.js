// The build this package belongs to (docs/packaging.md): make dist writes
// the version into the copy it packs. In the source tree it is null: no
// build, so neither the platform package nor the daemon is compared with it.
export const VERSION = null;
