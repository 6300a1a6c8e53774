/**
 * An input as it may arrive when its schema refused it: any field absent or of any type. Rules
 * that take one check only the fields that are well-typed and leave the rest to the schema.
 */
export type Unchecked<T> = { [K in keyof T]?: unknown };
