// http(s) audio urls that cannot be parsed (`https://`, `http://[bad`): a clear reason for the error record, instead of the URL parser's bare "Invalid URL".

/** Longest excerpt of a url quoted in a message. */
const EXCERPT = 80;

/** The url quoted for a message, cut to EXCERPT characters. */
function quoted(url: string): string {
  return JSON.stringify(url.length > EXCERPT ? `${url.slice(0, EXCERPT)}…` : url);
}

/**
 * Why an `http://` / `https://` url is unusable, or null when it parses (or is not an http(s) url:
 * local paths are checked where they are read). The WHATWG URL parser decides, as `new Audio` does.
 */
export function remoteUrlProblem(url: string): string | null {
  const scheme = url.startsWith("http://") ? "http://" : url.startsWith("https://") ? "https://" : null;
  if (scheme === null || URL.canParse(url)) return null;
  const rest = url.slice(scheme.length);
  const host = rest.split(/[/?#]/, 1)[0];
  const why = host === "" ? "it has no host" : /[[\]]/.test(host) ? "its host is not a valid bracketed IPv6 address" : "its host or port is not valid";
  return `not a valid URL or path (${quoted(url)}: ${why})`;
}
