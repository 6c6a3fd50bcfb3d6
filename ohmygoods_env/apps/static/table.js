// The table of a page that shows the seat's view and its legal actions as buttons (static/generic.html,
// static/artificium.html), put in place of the page's include line by the server (apps/web_shell.py,
// page_html): the setup's seats, agents and view, the view shown after every call, the moves, hint, undo,
// the watched game's steps and the start. The page defines, before its include line: PUBLIC_VIEW (the
// name of the view option that shows no seat's view), SCORE_EXTRA (the score columns after the final
// score, each [heading, field of a score row]), render(view) (draws the view, with what in it can be
// clicked) and offered(offer) (the page's part of the agents' offer: the players choice and its default).
let AGENTS = [], HINT = false, gameId = null, busy = false;
function setupSeats() {
  const n = Number($("players").value), seat = $("seat"), keep = Number(seat.value || 0), watch = watching();
  seat.innerHTML = "";
  for (let p = 0; p < n; p++) option(seat, p);
  seat.value = String(Math.min(keep, n - 1));
  seat.parentElement.style.display = watch ? "none" : "inline-block";
  $("watchopts").style.display = watch ? "block" : "none";
  const view = $("view"); view.innerHTML = "";
  option(view, "public", PUBLIC_VIEW);
  for (let p = 0; p < n; p++) option(view, p, `seat ${p}'s view`);
  const box = $("opponents"); box.innerHTML = "";
  for (let p = 0; p < n; p++) {
    if (!watch && p === Number(seat.value)) continue;
    const div = document.createElement("div");
    const label = document.createElement("label"); label.textContent = `seat ${p}: `;
    const sel = document.createElement("select"); sel.className = "opponent"; sel.dataset.seat = p;
    AGENTS.forEach(a => option(sel, a));
    sel.value = AGENTS.includes("random") ? "random" : AGENTS[0];
    label.appendChild(sel); div.appendChild(label); box.appendChild(div);
  }
}
function show(view) {
  gameId = view.id;
  $("setup").style.display = "none"; $("game").style.display = "flex";
  render(view);
  const happened = $("happened"); happened.innerHTML = "";
  view.happened.forEach(t => { const d = document.createElement("div"); d.textContent = "\u25b6 " + t; happened.appendChild(d); });
  happened.classList.remove("flash"); if (view.happened.length) { void happened.offsetWidth; happened.classList.add("flash"); }
  const since = $("since"); since.innerHTML = "";
  view.since.forEach(t => { const li = document.createElement("li"); li.textContent = t;
    if (t.startsWith("\u25b6")) li.className = "note"; since.appendChild(li); });
  $("since-title").textContent = view.watch ? "Last moves" : "Since your last decision";
  $("decision").textContent = view.done ? "" : (view.watch ? "" : `Your decision: ${view.decision}`);
  const choices = $("choices"); choices.innerHTML = ""; $("hinted").textContent = "";
  view.choices.forEach((c, i) => {
    const b = document.createElement("button"); b.className = "choice"; b.dataset.action = c.action;
    b.textContent = `${i + 1}. ${c.text}`; b.onclick = () => move(c.action); choices.appendChild(b);
  });
  $("undo").style.display = view.watch || view.done ? "none" : "inline-block";
  $("hint").style.display = view.watch || view.done || !HINT ? "none" : "inline-block";
  $("watchbar").style.display = view.watch && !view.done ? "block" : "none";
  $("result").textContent = view.done ? view.result : "";
  const scores = $("scores"); scores.innerHTML = "";
  if (view.done) {
    scores.innerHTML = "<tr><th>seat</th><th>player</th><th>final score</th>" +
      SCORE_EXTRA.map(([heading]) => `<th>${heading}</th>`).join("") + "</tr>";
    view.scores.forEach(s => {
      const tr = document.createElement("tr");
      [s.player, view.players[s.player], s.score, ...SCORE_EXTRA.map(([, field]) => s[field])].forEach(v => {
        const td = document.createElement("td"); td.textContent = String(v); tr.appendChild(td); });
      if (view.winners.includes(s.player)) tr.style.fontWeight = "bold";
      scores.appendChild(tr);
    });
    $("download").href = `/api/replay?id=${encodeURIComponent(view.id)}`; $("download").style.display = "block";
  } else { $("download").style.display = "none"; }
  document.body.dataset.state = view.done ? "over" : (view.watch ? "watching" : "playing");
}
async function act(path, body) {
  if (busy) return; busy = true;
  document.querySelectorAll("#choices button").forEach(b => b.disabled = true);
  try { $("error").textContent = ""; show(await api(path, body)); }
  catch (e) { $("error").textContent = e.message; document.querySelectorAll("#choices button").forEach(b => b.disabled = false); }
  finally { busy = false; }
}
function move(action) { return act("/api/move", {id: gameId, action}); }
$("hint").onclick = async () => {
  try { const h = await api(`/api/hint?id=${encodeURIComponent(gameId)}`); $("hinted").textContent = `hint: ${h.text}`;
    document.querySelectorAll("#choices button").forEach(b => b.classList.toggle("hinted", Number(b.dataset.action) === h.action)); }
  catch (e) { $("hinted").textContent = e.message; }
};
$("undo").onclick = () => act("/api/undo", {id: gameId});
$("stepone").onclick = () => act("/api/step", {id: gameId, moves: 1});
$("stepten").onclick = () => act("/api/step", {id: gameId, moves: 10});
$("again").onclick = () => { $("game").style.display = "none"; $("setup").style.display = "block"; document.body.dataset.state = "setup"; };
$("mode").onchange = setupSeats; $("players").onchange = setupSeats; $("seat").onchange = setupSeats;
$("start").onclick = () => {
  const body = {game: GAME, players: Number($("players").value), watch: watching(),
    opponents: [...document.querySelectorAll("select.opponent")].map(s => s.value)};
  if (!body.watch) body.seat = Number($("seat").value);
  else body.view = $("view").value === "public" ? "public" : Number($("view").value);
  const seed = $("seed").value.trim(); if (seed) body.seed = seed;
  return act("/api/new", body);
};
(async () => {
  try {
    const offer = await api("/api/agents?game=" + encodeURIComponent(GAME));
    AGENTS = offer.agents; HINT = offer.hint;
    offered(offer);
    setupSeats();
    setupLoaded();
  } catch (e) { setupLoaded(e); }
})();
