"""House bot `caravelas/greedy`: sails for the nearest worthwhile target.

Targets are its own discovery places, cube places of colours it can still
carry, and Lisboa when it has cubes to deliver or caravels to repair. Each
card goes where the target value, discounted by the fewest moves still to
sail, is highest; it ends the turn when every card would lose ground.

The map is a copy of the house map of engine `caravelas-1` (one move per
line or arrow); bots cannot import the engine. A changed map only makes this
bot sail worse, never illegally: it always picks among the legal actions.
"""

MAP = """
lisboa: cabo_bojador mar_de_portugal mar_dos_acores
mar_dos_acores: acores lisboa
acores: lisboa madeira mar_dos_acores mar_dos_sargacos
mar_dos_sargacos: acores mar_oceano
mar_de_portugal: lisboa madeira mar_das_canarias
madeira: acores mar_das_canarias mar_de_portugal
mar_das_canarias: cabo_bojador madeira mar_de_portugal
cabo_bojador: mar_das_canarias rio_do_ouro
rio_do_ouro: arguim cabo_bojador
arguim: cabo_branco rio_do_ouro
cabo_branco: arguim cabo_verde rio_de_sanaga
cabo_verde: cabo_branco guine mar_oceano
rio_de_sanaga: cabo_branco guine
guine: cabo_verde rio_de_sanaga serra_leoa
serra_leoa: cabo_das_palmas calmarias guine
cabo_das_palmas: mina serra_leoa
mina: cabo_das_palmas golfo_da_guine
golfo_da_guine: fernando_po mina sao_tome
fernando_po: golfo_da_guine sao_tome
sao_tome: ascensao cabo_lopo_goncalves fernando_po golfo_da_guine
cabo_lopo_goncalves: congo sao_tome
congo: cabo_lopo_goncalves costa_de_angola
costa_de_angola: cabo_negro congo santa_helena
cabo_negro: cabo_da_cruz costa_de_angola
cabo_da_cruz: angra_pequena cabo_negro
angra_pequena: cabo_da_cruz cabo_da_volta
cabo_da_volta: angra_pequena cabo_da_boa_esperanca cabo_negro
cabo_da_boa_esperanca: angra_de_sao_bras cabo_da_volta mar_do_cabo
mar_oceano: cabo_verde calmarias mar_dos_sargacos
calmarias: ascensao mar_do_brasil mar_oceano serra_leoa
ascensao: calmarias corrente_equatorial santa_helena sao_tome vera_cruz
corrente_equatorial: ascensao vera_cruz
mar_do_brasil: calmarias vera_cruz
vera_cruz: abrolhos corrente_equatorial mar_do_brasil
abrolhos: mar_do_sul tristao_da_cunha vera_cruz
mar_do_sul: abrolhos tristao_da_cunha
santa_helena: ascensao costa_de_angola tristao_da_cunha
tristao_da_cunha: cabo_da_boa_esperanca mar_do_sul santa_helena ventos_do_oeste
ventos_do_oeste: mar_do_cabo tristao_da_cunha
mar_do_cabo: cabo_da_boa_esperanca ventos_do_oeste
angra_de_sao_bras: cabo_da_boa_esperanca rio_do_infante
rio_do_infante: angra_de_sao_bras natal
natal: corrente_das_agulhas rio_do_infante terra_da_boa_gente
terra_da_boa_gente: natal sofala
sofala: rio_dos_bons_sinais terra_da_boa_gente
rio_dos_bons_sinais: mocambique sofala
mocambique: cabo_delgado canal_de_mocambique natal rio_dos_bons_sinais sao_lourenco
canal_de_mocambique: corrente_das_agulhas mocambique
corrente_das_agulhas: canal_de_mocambique natal
sao_lourenco: mascarenhas mocambique
mascarenhas: chagos sao_lourenco
chagos: maldivas mascarenhas
cabo_delgado: mocambique quiloa
quiloa: cabo_delgado zanzibar
zanzibar: mombaca quiloa
mombaca: melinde zanzibar
melinde: calecute costa_dos_somalis mombaca moncao_sudoeste_1
costa_dos_somalis: melinde mogadoxo
mogadoxo: cabo_guardafui costa_dos_somalis
cabo_guardafui: mogadoxo socotora
socotora: cabo_guardafui mar_arabico moncao_nordeste_2
mar_arabico: costa_do_guzerate golfo_de_oma socotora
golfo_de_oma: mar_arabico ormuz
ormuz: golfo_de_oma
costa_do_guzerate: goa mar_arabico
goa: angediva costa_do_guzerate moncao_nordeste_1 socotora
angediva: calecute goa
calecute: angediva cochim moncao_sudoeste_3
cochim: cabo_comorim calecute maldivas
cabo_comorim: ceilao cochim maldivas
ceilao: cabo_comorim
maldivas: cabo_comorim chagos cochim
moncao_sudoeste_1: melinde moncao_sudoeste_2
moncao_sudoeste_2: moncao_sudoeste_1 moncao_sudoeste_3
moncao_sudoeste_3: calecute moncao_sudoeste_2
moncao_nordeste_1: goa moncao_nordeste_2
moncao_nordeste_2: moncao_nordeste_1 socotora
"""
DISCOVERY_POINTS = {
    "cabo_bojador": 1,
    "madeira": 1,
    "acores": 1,
    "arguim": 1,
    "cabo_verde": 1,
    "guine": 1,
    "serra_leoa": 1,
    "ascensao": 1,
    "vera_cruz": 2,
    "santa_helena": 2,
    "sao_tome": 2,
    "mina": 2,
    "fernando_po": 2,
    "tristao_da_cunha": 2,
    "congo": 3,
    "cabo_negro": 3,
    "angra_de_sao_bras": 3,
    "rio_do_infante": 3,
    "natal": 3,
    "sofala": 4,
    "mocambique": 4,
    "sao_lourenco": 4,
    "quiloa": 4,
    "mombaca": 5,
    "maldivas": 5,
    "melinde": 5,
    "cochim": 5,
    "ceilao": 5,
    "mogadoxo": 6,
    "goa": 6,
    "socotora": 6,
    "ormuz": 6,
}
CUBE_PLACES = {
    "red": "guine",
    "brown": "vera_cruz",
    "yellow": "mina",
    "blue": "congo",
    "white": "sofala",
    "pink": "mombaca",
    "black": "cochim",
    "green": "ceilao",
}
SLOT_VALUES = {
    "red": 3,
    "brown": 4,
    "yellow": 5,
    "blue": 6,
    "white": 7,
    "pink": 8,
    "black": 9,
    "green": 10,
}
# The player card of engine `caravelas-3` (rules figs. 4 and 5).
CARAVEL_SLOTS = {
    1: ("red", "black"),
    2: ("yellow", "white"),
    3: ("brown", "pink"),
    4: ("blue", "green"),
}
LISBOA = "lisboa"
DECAY = 0.85  # value kept per move still to sail
PENALTY = 2  # an undiscovered card held at the end costs 2 points

_steps = {}
_dist = {}


def _graph():
    if not _steps:
        for line in MAP.strip().splitlines():
            here, _, rest = line.partition(":")
            _steps[here] = rest.split()
    return _steps


def distance(start, goal):
    """Fewest moves from `start` to `goal` (a large number when unknown)."""
    if start not in _dist:
        steps = _graph()
        seen = {start: 0}
        frontier = [start]
        while frontier:
            nxt = []
            for here in frontier:
                for step in steps.get(here, ()):
                    if step not in seen:
                        seen[step] = seen[here] + 1
                        nxt.append(step)
            frontier = nxt
        _dist[start] = seen
    return _dist[start].get(goal, 99)


def targets(view):
    """circle -> points this seat gains by ending a card there."""
    seat = view["seat"]
    cargo = view["cargo"][seat]
    sunk = view["sunk"][seat]
    found = {}
    for place in view["discovery_cards"]:
        found[place] = found.get(place, 0) + DISCOVERY_POINTS.get(place, 1) + PENALTY
    for colour, place in CUBE_PLACES.items():
        caravel = next(k for k, slots in CARAVEL_SLOTS.items() if colour in slots)
        if colour not in cargo and view["cubes"].get(colour, 0) > 0 and caravel not in sunk:
            found[place] = found.get(place, 0) + 0.6 * SLOT_VALUES[colour]
    home = sum(SLOT_VALUES[c] for c in cargo) + (3 if sunk else 0)
    if home:
        found[LISBOA] = found.get(LISBOA, 0) + home
    return found


def potential(here, goals):
    return max((v * DECAY ** distance(here, c) for c, v in goals.items()), default=0.0)


def _move_score(view, goals, action):
    dest = action["to"]
    gain = goals.get(dest, 0.0)
    rest = {c: v for c, v in goals.items() if c != dest}
    # The Cape's die is not counted: every road past the Cape stops there anyway.
    return gain + potential(dest, rest)


def act(view, legal):
    kinds = {}
    for action in legal:
        kinds.setdefault(action["type"], []).append(action)
    seat = view["seat"]
    here = view["fleets"][seat]
    if "draw" in kinds:
        return kinds["draw"][0]
    if "keep" in kinds:

        def keep_value(action):
            total = 0.0
            for place in action["places"]:
                q = 0.93 ** distance(here, place)
                total += q * DISCOVERY_POINTS.get(place, 1) - (1 - q) * PENALTY
            return total

        return max(kinds["keep"], key=keep_value)
    if "sink" in kinds:
        cargo = view["cargo"][seat]

        def loss(action):
            slots = CARAVEL_SLOTS[action["caravel"]]
            return sum(SLOT_VALUES[c] for c in slots if c in cargo)

        return min(kinds["sink"], key=loss)
    if "discard" in kinds:
        return next((a for a in kinds["discard"] if a["cards"] == []), kinds["discard"][0])
    goals = targets(view)
    moves = kinds.get("move", [])
    stop = kinds.get("end_turn", [legal[0]])[0]
    if not moves:
        return stop
    best = max(moves, key=lambda a: _move_score(view, goals, a))
    # Cards come back every turn, so sail on unless the best card loses ground.
    if _move_score(view, goals, best) >= potential(here, goals) - 0.5:
        return best
    return stop
