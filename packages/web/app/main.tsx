import { createRoot } from 'react-dom/client'
import { createClient } from '@bosun/host/client'
import { App } from './components/App.js'
import { StoreProvider } from './components/store-context.js'
import { addressOf, followAddress, hashOf } from './state/address.js'
import { createAppStore, type AppStore } from './state/store.js'
import './styles.css'

// The page is served by the host it talks to: same origin, so the Host/Origin fence passes.
const client = createClient({ baseUrl: window.location.origin })
const store: AppStore = createAppStore({
  client,
  onSelect: (id) => {
    // A session opened from the page (the list, a child's Open, New session, Fork) is a new entry
    // in the tab's history, so Back returns to the one before (followAddress opens it).
    if (window.location.hash !== hashOf(id)) history.pushState(null, '', addressOf(id, window.location))
  },
})
// The list is live from the host stream (GET /v1/stream); a host with a token answers 401 first,
// and the page shows its login form.
store.getState().followSessions()
// The session the address names, now and whenever it changes (a link, the address bar, Back).
followAddress(window, store)

createRoot(document.getElementById('root')!).render(
  <StoreProvider store={store}>
    <App />
  </StoreProvider>,
)
