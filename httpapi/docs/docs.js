// Renders the served OpenAPI document as a page for people: operations grouped by the
// first segment of their path, each with its credentials, parameters, body and answers,
// and schemas unfolded from their references. Text from the document is set as text,
// never as markup.
"use strict";

const methods = ["get", "post", "put", "patch", "delete"];

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

function resolve(doc, schema) {
  let seen = 0;
  while (schema && schema.$ref && seen++ < 20) {
    const path = schema.$ref.replace(/^#\//, "").split("/");
    schema = path.reduce((o, k) => (o ? o[k] : undefined), doc);
  }
  return schema || {};
}

function refName(schema) {
  return schema && schema.$ref ? schema.$ref.split("/").pop() : "";
}

function typeOf(doc, schema) {
  const s = resolve(doc, schema);
  let t = Array.isArray(s.type) ? s.type.join(" | ") : s.type || "";
  if (t === "array" || (Array.isArray(s.type) && s.type.includes("array"))) {
    const items = refName(s.items) || typeOf(doc, s.items);
    t = t.replace("array", "array of " + items);
  }
  if (!t && (s.oneOf || s.anyOf)) t = (s.oneOf || s.anyOf).map((x) => refName(x) || typeOf(doc, x)).join(" | ");
  if (s.format) t += " (" + s.format + ")";
  return refName(schema) ? refName(schema) + ": " + (t || "object") : t || "any";
}

function rules(s) {
  const out = [];
  if (s.enum) out.push("one of " + s.enum.join(", "));
  if (s.default !== undefined) out.push("default " + JSON.stringify(s.default));
  for (const k of ["minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern", "minItems", "maxItems"]) {
    if (s[k] !== undefined) out.push(k + " " + s[k]);
  }
  if (s.description) out.push(s.description);
  return out.join("; ");
}

// fields lists an object's properties, unfolding nested objects a few levels deep.
function fields(doc, schema, depth) {
  const s = resolve(doc, schema);
  const props = s.properties || (s.items && resolve(doc, s.items).properties);
  if (!props || depth > 3) return null;
  const required = new Set(s.required || (s.items && resolve(doc, s.items).required) || []);
  const list = el("ul", { class: "fields" });
  for (const [name, p] of Object.entries(props)) {
    const item = el("li", {}, el("code", {}, name), " ", el("span", { class: "muted" }, typeOf(doc, p)),
      required.has(name) ? " — required" : "", rules(resolve(doc, p)) ? " — " + rules(resolve(doc, p)) : "");
    item.append(fields(doc, p, depth + 1) || "");
    list.append(item);
  }
  return list;
}

function operation(doc, path, method, op) {
  const body = el("div");
  if (op.description) body.append(el("p", {}, op.description));
  const security = (op.security || doc.security || []).map((alt) => Object.keys(alt).join(" + ") || "none");
  body.append(el("p", {}, "Credentials: ", security.length ? security.join(" or ") : "none",
    op["x-scope"] ? ". Scope: " + op["x-scope"] : ""));
  const params = (op.parameters || []).map((p) => resolve(doc, p));
  if (params.length) {
    const rows = params.map((p) => el("tr", {}, el("td", {}, el("code", {}, p.name)), el("td", {}, p.in),
      el("td", {}, typeOf(doc, p.schema) + (p.required ? ", required" : "")),
      el("td", {}, [p.description, rules(resolve(doc, p.schema))].filter(Boolean).join("; "))));
    body.append(el("h4", {}, "Parameters"),
      el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "name"), el("th", {}, "in"), el("th", {}, "type"), el("th", {}, "rules"))),
        el("tbody", {}, ...rows)));
  }
  const request = op.requestBody && resolve(doc, op.requestBody);
  if (request && request.content) {
    for (const [media, m] of Object.entries(request.content)) {
      body.append(el("h4", {}, "Body (", media, ")"), el("p", { class: "muted" }, typeOf(doc, m.schema)), fields(doc, m.schema, 0) || "");
    }
  }
  body.append(el("h4", {}, "Answers"));
  for (const [status, r0] of Object.entries(op.responses || {})) {
    const r = resolve(doc, r0);
    const media = Object.entries(r.content || {});
    const item = el("div", {}, el("strong", {}, status), " ", r.description || "",
      media.length ? el("span", { class: "muted" }, " — " + media.map(([k, m]) => k + ": " + typeOf(doc, m.schema)).join(", ")) : "");
    if (/^2/.test(status) && media.length) item.append(fields(doc, media[0][1].schema, 0) || "");
    body.append(item);
  }
  const summary = el("summary", {}, el("span", { class: "method m-" + method }, method), el("span", { class: "path" }, path),
    el("span", {}, op.summary || ""));
  const d = el("details", { class: "op", id: op.operationId || method + path });
  d.dataset.search = (method + " " + path + " " + (op.summary || "")).toLowerCase();
  d.append(summary, body);
  return d;
}

async function render() {
  const summary = document.getElementById("summary");
  let doc;
  try {
    const r = await fetch("/api/openapi.json", { headers: { Accept: "application/json" } });
    doc = await r.json();
  } catch (e) {
    summary.textContent = "The OpenAPI document could not be read: " + e;
    return;
  }
  document.getElementById("title").textContent = doc.info.title + " " + doc.info.version;
  summary.textContent = doc.info.description || "";
  summary.append(" ", el("a", { href: "/api/openapi.json" }, "The document itself (OpenAPI " + doc.openapi + ")."));
  const groups = new Map();
  for (const [path, item] of Object.entries(doc.paths || {})) {
    const group = path.split("/")[2] || "api";
    for (const m of methods) {
      if (!item[m]) continue;
      if (!groups.has(group)) groups.set(group, []);
      groups.get(group).push(operation(doc, path, m, item[m]));
    }
  }
  const main = document.getElementById("operations");
  const toc = document.getElementById("toc");
  for (const [group, ops] of [...groups.entries()].sort()) {
    toc.append(el("a", { href: "#group-" + group }, group));
    main.append(el("section", { id: "group-" + group }, el("h2", {}, group), ...ops));
  }
  main.dataset.operations = String([...groups.values()].reduce((n, ops) => n + ops.length, 0));
  const filter = document.getElementById("filter");
  filter.addEventListener("input", () => {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    for (const d of main.querySelectorAll("details.op")) {
      d.hidden = !words.every((w) => d.dataset.search.includes(w));
    }
    for (const s of main.querySelectorAll("section")) {
      s.hidden = !s.querySelector("details.op:not([hidden])");
    }
  });
  if (location.hash) {
    const target = document.getElementById(location.hash.slice(1));
    if (target && target.tagName === "DETAILS") { target.open = true; target.scrollIntoView(); }
  }
}

render();
