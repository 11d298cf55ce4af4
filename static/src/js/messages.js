// Client-side messages, rendered like Django's (partials/messages.html).
const ICONS = {
  success: "bi-check-circle-fill",
  info: "bi-info-circle-fill",
  warning: "bi-exclamation-triangle-fill",
  danger: "bi-x-octagon-fill",
};

export function showMessage(level, text) {
  const box = document.getElementById("messages");
  if (!box) {
    console.warn(`[pinconsole] ${level}: ${text}`);
    return;
  }
  const alert = document.createElement("div");
  alert.className = `alert alert-${level} alert-dismissible fade show`;
  alert.setAttribute("role", level === "danger" ? "alert" : "status");
  if (level === "success" || level === "info") alert.dataset.autohide = "";
  const icon = document.createElement("i");
  icon.className = `bi ${ICONS[level] || ICONS.info} me-2`;
  icon.setAttribute("aria-hidden", "true");
  const body = document.createElement("span");
  body.textContent = text;
  const close = document.createElement("button");
  close.type = "button";
  close.className = "btn-close";
  close.dataset.bsDismiss = "alert";
  close.setAttribute("aria-label", "Close");
  alert.append(icon, body, close);
  box.appendChild(alert);
  autohide(box);
}

/** Remove the error and warning alerts: what they said was about an earlier request. */
export function dismissProblems() {
  const box = document.getElementById("messages");
  if (!box) return;
  for (const el of box.querySelectorAll(".alert-danger, .alert-warning")) el.remove();
}

/** Success/info alerts with data-autohide fade out after a few seconds. */
export function autohide(root) {
  for (const el of root.querySelectorAll(".alert[data-autohide]:not([data-autohide-armed])")) {
    el.dataset.autohideArmed = "";
    setTimeout(() => {
      el.classList.remove("show");
      setTimeout(() => el.remove(), 200);
    }, 6000);
  }
}
