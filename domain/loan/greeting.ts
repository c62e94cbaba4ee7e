/** The greeting service's rule. */
import { invalid } from "../kernel/errors.ts";

/** Greets `name`; a missing or empty name is a validation error. */
export function greet(name: string | null): string {
  if (name === null || name === "") throw invalid("arg0", "Name cannot be null or empty");
  return `Hello World, ${name}!`;
}
