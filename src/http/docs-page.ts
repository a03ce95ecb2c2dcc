// The /docs page: plain HTML rendered on the server from the OpenAPI document, with no
// script and nothing fetched from elsewhere (no CDN is reachable from tests or air-gapped hosts).

interface Parameter {
  readonly name?: string;
  readonly in?: string;
  readonly required?: boolean;
  readonly description?: string;
}

interface Operation {
  readonly summary?: string;
  readonly description?: string;
  readonly deprecated?: boolean;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: unknown;
  readonly 'x-scope'?: string;
  readonly 'x-successor'?: string;
}

export interface DocsDocument {
  readonly info?: { readonly title?: string; readonly version?: string; readonly description?: string };
  readonly paths?: Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>;
}

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function row(method: string, path: string, op: Operation): string {
  const params = (op.parameters ?? [])
    .map(
      (p) =>
        `<code>${escapeHtml(`${p.name ?? '?'}`)}</code> (${escapeHtml(p.in ?? '?')}${p.required ? ', required' : ''})`,
    )
    .join(', ');
  const body = op.requestBody === undefined ? '' : ' JSON body.';
  const deprecated = op.deprecated
    ? ` <strong>Deprecated</strong>${op['x-successor'] ? `: use <code>${escapeHtml(op['x-successor'])}</code>` : ''}.`
    : '';
  const text = escapeHtml(op.summary ?? op.description ?? '');
  return (
    `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(path)}</code></td>` +
    `<td>${escapeHtml(op['x-scope'] ?? '')}</td><td>${text}${body}${deprecated}</td><td>${params}</td></tr>`
  );
}

/** Renders the operations of an OpenAPI document as one HTML page. */
export function renderDocsPage(doc: DocsDocument): string {
  const title = escapeHtml(`${doc.info?.title ?? 'API'} ${doc.info?.version ?? ''}`.trim());
  const rows: string[] = [];
  for (const path of Object.keys(doc.paths ?? {}).sort()) {
    const item = doc.paths?.[path] ?? {};
    for (const method of METHODS) {
      const op = item[method];
      if (op !== undefined) rows.push(row(method, path, op as Operation));
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}</style>
</head><body>
<h1>${title}</h1>
<p>${escapeHtml(doc.info?.description ?? '')}</p>
<p>Machine-readable document: <a href="openapi.json">/openapi.json</a> (OpenAPI 3.1).
Send the API key as <code>auth_token</code> in the query or <code>Authorization: Bearer &lt;key&gt;</code>.</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Scope</th><th>Description</th><th>Parameters</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
</body></html>
`;
}
