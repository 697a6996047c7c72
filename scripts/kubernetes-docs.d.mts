// Types of kubernetes-docs.mjs, for the TypeScript tests that import it.
export declare const ROOT_MODELS: readonly string[];
export declare function readDeclaration(text: string): { descriptions: Record<string, string>; imports: string[] };
export declare function kubernetesDocs(read: (model: string) => string, roots?: readonly string[]): Record<string, Record<string, string>>;
export declare function installedDeclaration(model: string): string;
export declare function writeKubernetesDocs(outFile: string): void;
