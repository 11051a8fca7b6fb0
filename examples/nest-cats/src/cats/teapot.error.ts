/** What the teapot route throws: answered by TeapotFilter with a status of its own. */
export class TeapotError extends Error {}
