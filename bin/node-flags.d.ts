/** The Node flags of every production start of the daemon (see node-flags.js). */
export declare const NODE_FLAGS: readonly string[];
