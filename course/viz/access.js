// The loop explorer's front-end half (course/viz/access.py's Access). It shows the frames: the kernel sends every
// run it has made, and the step and max_turns sliders switch the frame shown here, at once, with no kernel round
// trip (a max_turns whose run is not made yet shows "running" until it arrives). And it is there for a keyboard and
// a screen reader: it sits in the explorer's box and looks after every control in it, whatever ipywidgets renders
// them as.

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

// A control's model, from the reference the kernel gave ("IPY_MODEL_<id>").
const control = (model, ref) => model.widget_manager.get_model(ref.slice("IPY_MODEL_".length));

async function controls(model) {
  const [step, turns, view, outcome] = await Promise.all(
    ["step", "max_turns", "view", "outcome"].map((name) => control(model, model.get(name))));
  return { step, turns, view, outcome };
}

function change(control, name, value) {  // on screen at once, and told to the kernel
  if (control.get(name) === value) return;
  control.set(name, value);
  control.save_changes();
}

// The runs sent so far, by setting ("<base>/<max_turns>"), and what the explorer shows: the frame of the step
// slider's step in the run of the max_turns slider's setting, or "running" while that run is not here, or while
// the kernel has not named the setting since the scenario, the budget or a deny rule moved.
function follow(model, c) {
  const runs = new Map(), pieces = new Map();
  const key = () => `${model.get("base")}/${c.turns.get("value")}`;
  let moved = false, watched = [];  // a control of the setting has moved; those controls
  let shown = key();  // the run on screen: the kernel drew it
  let painted = null;  // the run and step on screen, as drawn here
  const paint = (id, html, said) => {
    if (painted === id) return;
    painted = id;
    c.view.set("value", html);  // not sent back: the kernel has the frames, the page needs them only
    model.set("announce", said);
  };
  const show = () => {
    const now = key(), run = moved ? undefined : runs.get(now);
    if (!run) {  // never a frame of another setting: the run is being made
      shown = null;
      const pending = model.get("pending").replace("{max_turns}", String(c.turns.get("value")));
      change(c.outcome, "value", model.get("pending_outcome"));
      paint(`${now} running`, pending, pending.replace(/<[^>]*>/g, ""));
      return;
    }
    const last = run.frames.length - 1;
    if (shown !== now) {  // another run: its last step, its outcome said first
      shown = now;
      const [head, rest] = run.frames[last];
      paint(`${now}#${last}`, head + pieces.get(rest), run.first);
      change(c.outcome, "value", run.outcome);
      change(c.step, "max", last);  // the range first, in a message of its own: the value is kept within it
      change(c.step, "value", last);
      return;
    }
    const step = Math.min(Math.max(c.step.get("value"), 0), last);
    const [head, rest] = run.frames[step];
    paint(`${now}#${step}`, head + pieces.get(rest), run.said[step]);
  };
  const move = () => { moved = true; show(); };
  const watch = async () => {
    const settings = await Promise.all(model.get("settings").map((ref) => control(model, ref)));
    for (const m of watched) m.off("change:value change:index", move);  // a dropdown sends its index
    watched = settings;
    for (const m of watched) m.on("change:value change:index", move);
  };
  const receive = (msg) => {
    if (msg.base !== undefined) {  // the kernel has answered the controls
      moved = false;
      show();
      return;
    }
    if (!msg.run) return;
    for (const [id, html] of Object.entries(msg.pieces)) pieces.set(Number(id), html);
    runs.set(msg.run, msg);
    if (msg.run === key()) show();
  };
  model.on("msg:custom", receive);
  model.on("change:base", show);
  model.on("change:settings", watch);
  watch();
  c.turns.on("change:value", show);
  c.step.on("change:value", show);
  model.send({ ready: true });  // the kernel sends the runs it has, then each as it is made
  return () => {
    model.off("msg:custom", receive);
    model.off("change:base", show);
    model.off("change:settings", watch);
    for (const m of watched) m.off("change:value change:index", move);
    c.turns.off("change:value", show);
    c.step.off("change:value", show);
  };
}

export default {
  initialize({ model }) {
    let stop = null, gone = false;
    if (model.get("step")) controls(model).then((c) => { if (!gone) stop = follow(model, c); });
    return () => { gone = true; if (stop) stop(); };
  },
  render({ model, el }) {
    const status = document.createElement("div");
    status.className = "course-announce";
    status.setAttribute("role", "status");  // a polite live region: read out when its text changes
    el.appendChild(status);
    const announce = () => { status.textContent = model.get("announce"); };
    model.on("change:announce", announce);
    announce();
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
