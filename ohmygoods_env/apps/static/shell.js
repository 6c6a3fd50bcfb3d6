// What every game's page shares, put in place of the page's include line when the server loads the
// page (apps/web_shell.py, page_html): the element lookup, the token, the page's game and the list of
// every game the server has a page for (choosing one opens its page), the JSON call, the loading line
// of the setup, the select options and the watch-mode switch. The page sends the token with every call;
// the server checks it on the state-changing ones (every POST: a new game, a move, an undo, a step)
// and answers the reads (GET: the page, the agents' offer, a game's view, a hint, the replay page)
// from its own hosts without it.
const $ = id => document.getElementById(id);
const TOKEN = document.querySelector('meta[name="ohmygoods-token"]').content;  // the server obeys its own page only
const GAME = document.querySelector('meta[name="ohmygoods-game"]').content;  // the game of this page
async function api(path, body) {
  const headers = {"X-Ohmygoods-Token": TOKEN};
  const res = await fetch(path, body === undefined ? {headers} :
    {method: "POST", headers: {...headers, "Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}
// The setup waits for the server's offer of agents (seconds on a first start, while the networks
// load): the page opens with data-state "loading", a "Loading the agents" line and Start disabled.
function setupLoaded(error) {  // the offer arrived (no error): show the setup; else say why it cannot start
  if (error) {
    $("loading").textContent = "Could not load the agents: " + error.message + " (reload the page)";
    return;
  }
  $("loading").style.display = "none";
  $("start").disabled = false;
  document.body.dataset.state = "setup";
}
function option(select, value, text) {
  const o = document.createElement("option"); o.value = value; o.textContent = text ?? value; select.appendChild(o);
}
function watching() { return $("mode").value === "watch"; }
async function offerGames() {  // every game with a page; choosing another opens its page
  const select = $("games");
  try {
    const offer = await api("/api/games");
    offer.games.forEach(g => option(select, g.name, g.title));
    select.value = GAME;
  } catch (e) { option(select, GAME); select.value = GAME; }
  select.onchange = () => { if (select.value !== GAME) location.href = "/?game=" + encodeURIComponent(select.value); };
}
offerGames();
