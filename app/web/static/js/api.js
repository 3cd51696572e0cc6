/** REST calls with the logged-in user's token (kept in localStorage: a reload stays logged in). */

const KEY = "preferans.session";

/** @typedef {{token: string, name: string, user_id: number, role: string, expires_at: number}} Session */

export class ApiError extends Error {
  /** @param {number} status @param {string} code @param {string} message @param {string} [field] */
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field; // the request field a 422 names (shown beside it in forms)
  }
}

/** @returns {Session | null} */
export function session() {
  try {
    const data = JSON.parse(localStorage.getItem(KEY) || "null");
    if (data && data.expires_at * 1000 > Date.now()) return data;
  } catch {
    /* a damaged entry is a logged-out user */
  }
  return null;
}

/** Forget the token here (it was refused, or the user signs out). */
export function logout() {
  localStorage.removeItem(KEY);
}

/** Sign out: the server revokes the user's tokens (every device) and closes its sockets; then forget it. */
export async function signOut() {
  try {
    await call("POST", "/api/auth/logout");
  } catch {
    /* already invalid: nothing to revoke */
  }
  logout();
}

/**
 * @param {string} method
 * @param {string} path
 * @param {any} [body]
 * @returns {Promise<any>}
 */
export async function call(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { "Content-Type": "application/json" };
  const current = session();
  if (current) headers.Authorization = `Bearer ${current.token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    if (response.status === 401 && current) logout();
    throw new ApiError(response.status, data?.error ?? "error", data?.message ?? response.statusText, data?.field);
  }
  return data;
}

/** @param {string} name @param {string} password @returns {Promise<Session>} */
export async function login(name, password) {
  const data = await call("POST", "/api/auth/login", { name, password });
  localStorage.setItem(KEY, JSON.stringify(data));
  return data;
}

/** @param {string} name @param {string} password */
export async function register(name, password) {
  await call("POST", "/api/auth/register", { name, password });
  return login(name, password);
}
