// Bourse API client for the browser: signed REST calls (HMAC-SHA256 with WebCrypto) and the WebSocket.
const encoder = new TextEncoder();
let clockOffsetMs = 0;

export async function syncClock() {
  const before = Date.now();
  const { serverTime } = await (await fetch('/api/v1/time')).json();
  clockOffsetMs = serverTime - Math.round((before + Date.now()) / 2);
}

export function now() {
  return Date.now() + clockOffsetMs;
}

async function hmacHex(secret, text) {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(text));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** An error response: the problem+json body. */
export class ApiError extends Error {
  constructor(problem) {
    super(problem.detail || problem.title || 'request failed');
    this.problem = problem;
  }
}

export async function publicGet(path) {
  const response = await fetch(path);
  const body = await response.json();
  if (!response.ok) throw new ApiError(body);
  return body;
}

export async function signed(credentials, method, path, body) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const timestamp = String(now());
  const signature = await hmacHex(credentials.secret, timestamp + method + path + text);
  const response = await fetch(path, {
    method,
    body: text === '' ? undefined : text,
    headers: {
      'Content-Type': 'application/json',
      'X-Bourse-Key': credentials.key,
      'X-Bourse-Timestamp': timestamp,
      'X-Bourse-Signature': signature,
    },
  });
  const result = await response.json();
  if (!response.ok) throw new ApiError(result);
  return result;
}

export async function wsAuthMessage(credentials) {
  const timestamp = String(now());
  return { op: 'auth', key: credentials.key, timestamp, signature: await hmacHex(credentials.secret, timestamp + 'GET/ws') };
}

/** Decimal string → scaled BigInt at the given scale, or null when it has more places or is not a number. */
export function toUnits(text, scale) {
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text)) return null;
  const [whole, fraction = ''] = text.split('.');
  if (fraction.replace(/0+$/, '').length > scale) return null;
  return BigInt(whole + fraction.padEnd(scale, '0'));
}
