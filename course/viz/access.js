// The loop explorer's front-end half (course/viz/explorer.py's Access), for a keyboard and a screen reader. It sits
// in the explorer's box and looks after every control in it, whatever ipywidgets renders them as.

// Lumino, JupyterLab's shortcut engine, runs no shortcut for a key pressed on an element with this attribute
// ("a" would insert a cell, "d d" delete one, an arrow key move to another cell).
const SUPPRESS = "data-lm-suppress-shortcuts";

// The notebook's shortcuts that still work from a control: save (Ctrl+S, Cmd+S on a Mac) and run (Shift+Enter,
// Ctrl+Enter, Alt+Enter). Every other key stays in the explorer.
function passes(event) {
  const accel = event.ctrlKey || event.metaKey;
  if (event.key === "s" || event.key === "S") return accel && !event.altKey && !event.shiftKey;
  return event.key === "Enter" && (event.shiftKey || accel || event.altKey);
}

function set(element, name, value) {
  if (element.getAttribute(name) !== value) element.setAttribute(name, value);  // unchanged: no new mutation
}

// What ipywidgets leaves out: a slider's name (its label) and value (its readout, not "10.0"), a toggle's state.
function dress(root) {
  for (const slider of root.querySelectorAll(".widget-slider")) {
    const handle = slider.querySelector(".noUi-handle");
    const label = slider.querySelector(".widget-label");
    const readout = slider.querySelector(".widget-readout");
    if (handle && label) set(handle, "aria-label", label.textContent.trim());
    if (handle && readout) set(handle, "aria-valuetext", readout.textContent.trim());
  }
  for (const toggle of root.querySelectorAll(".widget-toggle-button"))
    set(toggle, "aria-pressed", String(toggle.classList.contains("mod-active")));
}

function attach(root) {
  // JupyterLab reads shortcuts on the document, after the explorer has seen the key: each key is marked first
  root.addEventListener("keydown", (event) => {
    if (passes(event)) event.target.removeAttribute(SUPPRESS);
    else event.target.setAttribute(SUPPRESS, "");
    if (event.key !== "Escape") return;
    const cell = root.closest(".jp-Cell");  // back to the notebook: its shortcuts work again
    if (cell) cell.focus();
  }, true);
  const watch = new MutationObserver(() => dress(root));
  watch.observe(root, { subtree: true, childList: true, attributes: true,
                        attributeFilter: ["class", "aria-valuetext"] });
  dress(root);
  return watch;
}

export default {
  render({ model, el }) {
    const status = document.createElement("div");
    status.className = "course-announce";
    status.setAttribute("role", "status");  // a polite live region: read out when its text changes
    el.appendChild(status);
    const announce = () => { status.textContent = model.get("announce"); };
    model.on("change:announce", announce);
    let watch = null, frames = 0;
    const find = () => {  // the box puts this widget in place after rendering it
      const root = el.closest(".course-explorer");
      if (root) watch = attach(root);
      else if (++frames < 600) requestAnimationFrame(find);
    };
    find();
    return () => {
      model.off("change:announce", announce);
      if (watch) watch.disconnect();
    };
  },
};
