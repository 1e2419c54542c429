// The session API: JSON over fetch, the CSRF token on every write, and the
// live event stream.

let csrf = '';

// setCSRF remembers the session's CSRF token (from /api/session or login).
export function setCSRF(token) {
  csrf = token || '';
}

// ApiError is an error answer: its status, its code and the server's
// message, which is written for people.
export class ApiError extends Error {
  constructor(status, body, retryAfter) {
    super((body && body.message) || `request failed (${status})`);
    this.status = status;
    this.code = (body && body.error) || '';
    this.retryAfter = retryAfter ? Number(retryAfter) : 0;
  }
}

// call sends one request to /api and returns the decoded answer (null for
// 204). Writes ask for the written resource back (Prefer:
// return=representation), which the page draws from. Any error answer is
// thrown as an ApiError.
// requestTimeout bounds one request, in ms.
const requestTimeout = 15000;

export async function call(method, path, body) {
  const opts = { method, headers: {}, credentials: 'same-origin', cache: 'no-store' };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  if (method !== 'GET') {
    opts.headers['X-CSRF-Token'] = csrf;
    opts.headers.Prefer = 'return=representation';
  }
  // A write the hub does not answer in time fails rather than leave a
  // control pending (the hub gives up on a device within its own timeout).
  const abort = new AbortController();
  opts.signal = abort.signal;
  const timer = setTimeout(() => abort.abort(), requestTimeout);
  let res;
  try {
    res = await fetch('/api' + path, opts);
  } catch (e) {
    throw new ApiError(0, {
      message: abort.signal.aborted
        ? `The hub did not answer within ${requestTimeout / 1000} seconds`
        : 'The hub cannot be reached',
    });
  } finally {
    clearTimeout(timer);
  }
  if (res.status === 204) return null;
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, data, res.headers.get('Retry-After'));
  return data;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body === undefined ? {} : body);
export const put = (path, body) => call('PUT', path, body);
export const patch = (path, body) => call('PATCH', path, body);
export const del = (path) => call('DELETE', path);

// at builds a path from a template, encoding each value as one segment:
// at`/rooms/${id}/state`.
export function at(strings, ...values) {
  let out = strings[0];
  values.forEach((v, i) => {
    out += encodeURIComponent(String(v)) + strings[i + 1];
  });
  return out;
}

// The event types the hub publishes; "resync" says events were lost and
// the page reads the house again.
const eventTypes = ['light', 'room', 'scene', 'media', 'power', 'remote', 'sensor', 'device', 'key', 'resync'];

// follow opens the live event stream. onEvent gets each event; onState
// gets 'open', 'retrying' or 'closed' (the hub refused the stream, e.g. the
// session ended).
export function follow(onEvent, onState) {
  const es = new EventSource('/api/events');
  for (const t of eventTypes) {
    es.addEventListener(t, (msg) => {
      try {
        onEvent(JSON.parse(msg.data));
      } catch (e) {
        console.error('bad event', e);
      }
    });
  }
  es.onopen = () => onState('open');
  es.onerror = () => onState(es.readyState === EventSource.CLOSED ? 'closed' : 'retrying');
  return es;
}
