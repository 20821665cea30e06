// Routing: `#session=<id>` opens a session's page, anything else the overview with the
// fragment's filters. Every view change is a fragment change, so links and Back work.
(() => {
  const { fragment } = window.Cachet;
  let shown = 0;
  /** The overview as last filtered, so Back from a session returns to it. */
  let lastOverview = null;

  async function route() {
    const params = fragment();
    const ticket = ++shown;
    document.body.setAttribute('data-ready', 'loading');
    try {
      const sessionId = params.get('session');
      if (sessionId) await window.Cachet.showSession(sessionId, params);
      else {
        lastOverview = location.hash || null;
        await window.Cachet.showOverview(params);
      }
      if (ticket === shown) document.body.setAttribute('data-ready', 'true');
    } catch (error) {
      window.Cachet.status(`Error: ${error.message}`);
      document.body.setAttribute('data-ready', 'error');
    }
  }

  const home = () => {
    const token = fragment().get('token');
    return token ? `#token=${encodeURIComponent(token)}` : '#';
  };
  document.getElementById('home').addEventListener('click', (event) => {
    event.preventDefault();
    location.hash = home();
  });
  document.getElementById('back').addEventListener('click', (event) => {
    event.preventDefault();
    location.hash = lastOverview ?? home();
  });
  window.addEventListener('hashchange', route);
  route();
})();
