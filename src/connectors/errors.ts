// Connector errors: a VoxError with a stable code that names the call and the agent frame it is about.
import { VoxError, type ErrorCode } from "../model/errors.js";

/** A connector failure (connect, protocol, hang-up…), with its error code. */
export class ConnectorError extends VoxError {
  constructor(code: ErrorCode, detail: string, context: { call?: string; frame?: string } = {}) {
    super(code, detail, { file: context.call, field: context.frame });
    this.name = "ConnectorError";
  }
}

/** A short, printable excerpt of a frame for error messages (never more than `max` characters). */
export function excerpt(data: string | Uint8Array, max = 60): string {
  if (typeof data !== "string") {
    const hex = Array.from(data.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join(" ");
    return `${data.length} bytes: ${hex}${data.length > 16 ? " …" : ""}`;
  }
  const flat = data.replace(/\s+/g, " ");
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}
