// The browser side of a cookie session: the cookie itself is HttpOnly (the script never sees
// it); the script keeps the CSRF token and the session's mandates in memory.

export function createSession() {
  let state = null; // the last SessionOut from the server, null when signed out

  const session = {
    get signedIn() {
      return state !== null;
    },
    csrfToken: () => state?.csrf_token ?? null,
    mandates: () => state?.mandates ?? [],
    // {id, name, role} of the mandate requests act in
    mandate() {
      const active = state?.mandates.find((item) => item.mandate_id === state.mandate_id);
      return active ? { id: active.mandate_id, name: active.name, role: active.role } : null;
    },
    // The session the cookie names, if any (a reload keeps you signed in).
    async restore(api) {
      try {
        state = await api.get("/v1/sessions/current");
      } catch (error) {
        state = null;
        if (error.status !== 401) throw error;
      }
      return state;
    },
    async signIn(api, apiKey) {
      state = await api.post("/v1/sessions", { api_key: apiKey });
      return state;
    },
    // Another key (of another mandate) joins this session; its mandate becomes active.
    async addKey(api, apiKey) {
      state = await api.post("/v1/sessions/current/keys", { api_key: apiKey });
      return state;
    },
    async switchMandate(api, mandateId) {
      state = await api.put("/v1/sessions/current/mandate", { mandate_id: mandateId });
      return state;
    },
    async signOut(api) {
      try {
        await api.delete("/v1/sessions/current");
      } finally {
        state = null;
      }
    },
    forget() {
      state = null;
    },
  };
  return session;
}
