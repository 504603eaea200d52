// Types of build-stamp.mjs, for the test that imports it (test/build-script.e2e-spec.ts).
export declare const STAMP_FILE: string;
export declare const ENTRY_POINTS: string[];
export declare function buildInputs(root: string): string[];
export declare function inputsHash(root: string): string;
export declare function isCurrent(root: string, hash?: string): boolean;
export declare function build(options: { root: string; ifChanged: boolean; compile: () => void }): boolean;
