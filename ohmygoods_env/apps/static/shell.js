// What every game's page shares, put in place of the page's include line when the server loads the
// page (apps/serve.py, page_html): the element lookup, the token the server checks on every request,
// the JSON call, the select options and the watch-mode switch.
const $ = id => document.getElementById(id);
const TOKEN = document.querySelector('meta[name="ohmygoods-token"]').content;  // the server obeys its own page only
async function api(path, body) {
  const headers = {"X-Ohmygoods-Token": TOKEN};
  const res = await fetch(path, body === undefined ? {headers} :
    {method: "POST", headers: {...headers, "Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}
function option(select, value, text) {
  const o = document.createElement("option"); o.value = value; o.textContent = text ?? value; select.appendChild(o);
}
function watching() { return $("mode").value === "watch"; }
