// The navigation's bell: its unread count follows /ws/notifications/ (the server sends the count at connect and
// at every change), reconnecting with backoff when the socket drops. The count rendered with the page stays
// right until then.
import { track, wsUrl } from "./lifecycle.js";

export function initBell(root) {
  for (const link of root.querySelectorAll("[data-notifications-ws]")) {
    if (link.dataset.bellLive) continue;
    link.dataset.bellLive = "1";
    const badge = link.querySelector("#nav-notifications");
    let ws = null;
    let closed = false;
    let delay = 1000;
    const connect = () => {
      ws = new WebSocket(wsUrl(link.dataset.notificationsWs));
      ws.onopen = () => {
        delay = 1000;
      };
      ws.onmessage = (message) => {
        const { unread } = JSON.parse(message.data);
        badge.textContent = unread > 0 ? String(unread) : "";
        link.dataset.unread = String(unread);
      };
      ws.onclose = (event) => {
        if (closed || event.code === 4401) return;
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      };
    };
    connect();
    track(link, () => {
      closed = true;
      if (ws) ws.close();
    });
  }
}
