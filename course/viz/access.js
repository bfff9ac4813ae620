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

// What ipywidgets leaves out or gets wrong: a slider's name (its label), value (its readout, not "10.0") and range
// (noUiSlider writes one decimal: a $0.0005 budget ended at "0.0"), a disabled slider's state (its handle stayed a
// Tab stop), a readout's role and name, a toggle's state, and icons read out as glyphs ("\uf049 first").
function dress(root) {
  for (const slider of root.querySelectorAll(".widget-slider")) {
    const handle = slider.querySelector(".noUi-handle");
    const label = slider.querySelector(".widget-label");
    const readout = slider.querySelector(".widget-readout");
    const target = slider.querySelector(".noUi-target");
    if (!handle) continue;
    const name = label ? label.textContent.trim() : "";
    if (name) set(handle, "aria-label", name);
    if (readout) {
      set(handle, "aria-valuetext", readout.textContent.trim());
      set(readout, "tabindex", "-1");  // typed into after a click; the keyboard moves the handle
      set(readout, "role", "textbox");
      if (name) set(readout, "aria-label", name);
    }
    const api = target && target.noUiSlider;
    if (api) {
      set(handle, "aria-valuemin", String(api.options.range.min));
      set(handle, "aria-valuemax", String(api.options.range.max));
      set(handle, "aria-valuenow", String(api.get()));
    }
    const off = target !== null && target.hasAttribute("disabled");  // ipywidgets greys it out, no more
    set(handle, "tabindex", off ? "-1" : "0");
    set(handle, "aria-disabled", String(off));
  }
  for (const toggle of root.querySelectorAll(".widget-toggle-button"))
    set(toggle, "aria-pressed", String(toggle.classList.contains("mod-active")));
  for (const icon of root.querySelectorAll("i.fa")) set(icon, "aria-hidden", "true");
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
  // a new frame in the view (the most frequent change, and the largest) has no control to dress
  const watch = new MutationObserver((changes) => {
    const inView = (node) => (node.nodeType === 1 ? node : node.parentElement)?.closest(".course-view");
    if (!changes.every((change) => inView(change.target))) dress(root);
  });
  watch.observe(root, { subtree: true, childList: true, attributes: true,
                        attributeFilter: ["class", "disabled", "aria-valuetext", "aria-valuenow", "aria-valuemin",
                                          "aria-valuemax"] });
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
    const sheet = document.createElement("style");  // the classes of the frames' styles
    el.appendChild(sheet);
    const restyle = () => { sheet.textContent = model.get("styles"); };
    model.on("change:styles", restyle);
    restyle();
    let watch = null, frames = 0;
    const find = () => {  // the box puts this widget in place after rendering it
      const root = el.closest(".course-explorer");
      if (root) watch = attach(root);
      else if (++frames < 600) requestAnimationFrame(find);
    };
    find();
    return () => {
      model.off("change:announce", announce);
      model.off("change:styles", restyle);
      if (watch) watch.disconnect();
    };
  },
};
