// The package's version (sent in hello as toolscored-node/<version>).
export const VERSION = '0.1.0';
