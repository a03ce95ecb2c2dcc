// @ts-check
// The console script, part 1: constants, the API call with the Bearer key, and DOM helpers that
// set text and attributes only (no HTML from data).
// Plain browser JavaScript in a String.raw: no backticks or template substitutions inside.
const KEY = 'tokenproxy.console.key';
const REFRESH_MS = 3000;
const SVG = 'http://www.w3.org/2000/svg';
const STATUSES = ['BROADCASTING', 'SUCCESS', 'MINED', 'FAILED'];
/** An element of the page by its id (any: the page's elements are inputs, forms and panels alike). */
const $ = /** @type {(id: string) => any} */ ((id) => document.getElementById(id));
let timer = null;
const shown = new Map();

class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.message)) || 'HTTP ' + status);
    this.status = status;
    this.code = body && body.code;
  }
}

async function api(method, path, body, key) {
  const headers = { authorization: 'Bearer ' + (key || sessionStorage.getItem(KEY) || '') };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
  });
  const text = await res.text();
  let json = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (name === 'text') node.textContent = value;
    else if (name === 'className') node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
  return node;
}

function setText(id, value) {
  $(id).textContent = value;
}

/** Digits grouped by thousands; the fraction as the API wrote it. */
function group(tokens) {
  const [whole, fraction] = String(tokens).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : grouped + '.' + fraction;
}

function showAmount(id, amount) {
  const node = $(id);
  node.textContent = group(amount.tokens);
  node.dataset.atomic = String(amount.atomic);
  node.dataset.tokens = amount.tokens;
}

function when(iso) {
  if (!iso) return '–';
  const d = new Date(iso);
  return d.toISOString().replace('T', ' ').slice(0, 19);
}

function short(hash) {
  return hash.length > 20 ? hash.slice(0, 10) + '…' + hash.slice(-8) : hash;
}

function replaceRows(tbody, rows, empty) {
  if (rows.length === 0) rows = [el('tr', {}, el('td', { colspan: '9', className: 'muted', text: empty }))];
  tbody.replaceChildren(...rows);
}

/** True when this panel's data differs from what is on screen (so forms in it are not reset). */
function changed(panel, data) {
  const text = JSON.stringify(data);
  if (shown.get(panel) === text) return false;
  shown.set(panel, text);
  return true;
}
