/** Every code a nodebench package throws, with what it means. */
export declare const CODES: Readonly<Record<string, string>>
/** The codes by name: `codes.NB_ERR_USAGE === 'NB_ERR_USAGE'`. */
export declare const codes: Readonly<Record<string, string>>

/** A nodebench error; `instanceof` holds for every nodebench error, whichever package threw it. */
export declare class NodebenchError extends Error {
  constructor (code: string, message: string, options?: { cause?: unknown })
  readonly code: string
}

/** An argument of the wrong type or value (nodebenchTrace's options). */
export declare class NodebenchTypeError extends TypeError {
  constructor (code: string, message: string, options?: { cause?: unknown })
  readonly code: string
}

/** The codes given, by name, each checked against the table. */
export declare function codesOf (names: string[]): Readonly<Record<string, string>>

export declare function isNodebenchError (err: unknown): err is NodebenchError
