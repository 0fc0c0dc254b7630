// html-to-text ships no types; it is mailparser's own HTML flattener (pinned to the version mailparser uses),
// used here so that payd has exactly one flattener. Only the call payd makes is declared.
declare module 'html-to-text' {
  export function htmlToText(html: string, options?: { wordwrap?: number | false | null; selectors?: { selector: string; format: string }[] }): string;
}
