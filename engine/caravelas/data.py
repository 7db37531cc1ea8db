"""House data for Caravelas: the map, the player card, the movement deck and the die.

The printed board, card values and die are not in the rules text, so this
project designed them (see RULES.md, "House data"). Everything here is plain
constants; the rules code reads it, never changes it. Coordinates are map
degrees (longitude east, latitude north) so the map can be drawn.
"""

from __future__ import annotations

# Circle kinds. A "dashed" circle is a dashed blue circle on an arrow's line:
# moving with the arrow skips it (rules 6.3).
LISBOA = "lisboa"
CALECUTE = "calecute"
CAPE = "cape"
PLACE = "place"
SEA = "sea"
DASHED = "dashed"

LISBOA_ID = "lisboa"
CALECUTE_ID = "calecute"
CAPE_ID = "cabo_da_boa_esperanca"

# (id, name, longitude, latitude, kind)
CIRCLES: tuple[tuple[str, str, float, float, str], ...] = (
    # Portugal and the Atlantic islands
    ("lisboa", "Lisboa", -9.1, 38.7, LISBOA),
    ("mar_dos_acores", "Mar dos Açores", -18.0, 39.5, DASHED),
    ("acores", "Açores", -27.0, 38.5, PLACE),
    ("mar_dos_sargacos", "Mar dos Sargaços", -34.0, 27.0, SEA),
    ("mar_de_portugal", "Mar de Portugal", -11.5, 34.5, DASHED),
    ("madeira", "Madeira", -18.5, 32.7, PLACE),
    ("mar_das_canarias", "Mar das Canárias", -13.0, 29.5, DASHED),
    # The coast of Africa, south to the Cape
    ("cabo_bojador", "Cabo Bojador", -14.5, 26.1, PLACE),
    ("rio_do_ouro", "Rio do Ouro", -18.0, 23.5, SEA),
    ("arguim", "Arguim", -16.5, 20.5, PLACE),
    ("cabo_branco", "Cabo Branco", -19.5, 17.5, SEA),
    ("cabo_verde", "Cabo Verde", -25.0, 15.1, PLACE),
    ("rio_de_sanaga", "Rio de Sanagá", -17.5, 14.0, SEA),
    ("guine", "Guiné", -15.5, 11.0, PLACE),
    ("serra_leoa", "Serra Leoa", -13.2, 7.5, PLACE),
    ("cabo_das_palmas", "Cabo das Palmas", -7.7, 3.5, SEA),
    ("mina", "São Jorge da Mina", -1.4, 5.1, PLACE),
    ("golfo_da_guine", "Golfo da Guiné", 3.5, 2.0, SEA),
    ("fernando_po", "Fernando Pó", 8.7, 3.8, PLACE),
    ("sao_tome", "São Tomé", 6.0, -1.0, PLACE),
    ("cabo_lopo_goncalves", "Cabo Lopo Gonçalves", 10.0, -3.0, SEA),
    ("congo", "Congo", 12.3, -6.5, PLACE),
    ("costa_de_angola", "Costa de Angola", 12.5, -11.0, SEA),
    ("cabo_negro", "Cabo Negro", 11.8, -15.7, PLACE),
    ("cabo_da_cruz", "Cabo da Cruz", 11.5, -21.8, DASHED),
    ("angra_pequena", "Angra Pequena", 14.0, -26.6, DASHED),
    ("cabo_da_volta", "Cabo da Volta", 16.0, -30.5, SEA),
    ("cabo_da_boa_esperanca", "Cabo da Boa Esperança", 18.5, -34.4, CAPE),
    # The open Atlantic: the volta do mar and the road to Vera Cruz
    ("mar_oceano", "Mar Oceano", -28.0, 7.0, SEA),
    ("calmarias", "Calmarias", -21.0, 0.0, SEA),
    ("ascensao", "Ascensão", -14.4, -7.9, PLACE),
    ("corrente_equatorial", "Corrente Equatorial", -27.0, -12.0, DASHED),
    ("mar_do_brasil", "Mar do Brasil", -32.0, -4.0, SEA),
    ("vera_cruz", "Terra de Vera Cruz", -39.0, -16.4, PLACE),
    ("abrolhos", "Abrolhos", -36.0, -25.0, SEA),
    ("mar_do_sul", "Mar do Sul", -24.0, -31.0, DASHED),
    ("santa_helena", "Santa Helena", -5.7, -15.9, PLACE),
    ("tristao_da_cunha", "Tristão da Cunha", -12.3, -37.1, PLACE),
    ("ventos_do_oeste", "Ventos do Oeste", -1.0, -38.0, DASHED),
    ("mar_do_cabo", "Mar do Cabo", 9.0, -38.0, DASHED),
    # East Africa
    ("angra_de_sao_bras", "Angra de São Brás", 22.1, -35.5, PLACE),
    ("rio_do_infante", "Rio do Infante", 27.0, -34.0, PLACE),
    ("natal", "Terra do Natal", 31.0, -29.8, PLACE),
    ("terra_da_boa_gente", "Terra da Boa Gente", 35.5, -24.5, SEA),
    ("sofala", "Sofala", 34.8, -20.0, PLACE),
    ("rio_dos_bons_sinais", "Rio dos Bons Sinais", 37.0, -17.5, SEA),
    ("mocambique", "Moçambique", 40.7, -15.0, PLACE),
    ("canal_de_mocambique", "Canal de Moçambique", 41.0, -21.5, DASHED),
    ("corrente_das_agulhas", "Corrente das Agulhas", 37.5, -28.0, DASHED),
    ("sao_lourenco", "Ilha de São Lourenço", 46.5, -19.0, PLACE),
    ("mascarenhas", "Mascarenhas", 57.5, -20.2, SEA),
    ("chagos", "Chagos", 71.0, -7.0, SEA),
    ("cabo_delgado", "Cabo Delgado", 41.5, -10.5, SEA),
    ("quiloa", "Quíloa", 39.5, -8.9, PLACE),
    ("zanzibar", "Zanzibar", 40.5, -6.0, SEA),
    ("mombaca", "Mombaça", 39.2, -4.0, PLACE),
    ("melinde", "Melinde", 41.0, -1.5, PLACE),
    ("costa_dos_somalis", "Costa dos Somalis", 45.0, -0.5, SEA),
    ("mogadoxo", "Mogadoxo", 46.0, 2.5, PLACE),
    ("cabo_guardafui", "Cabo Guardafui", 51.5, 9.0, SEA),
    ("socotora", "Socotorá", 53.8, 12.5, PLACE),
    # Arabia and India
    ("mar_arabico", "Mar Arábico", 60.0, 17.5, SEA),
    ("golfo_de_oma", "Golfo de Omã", 58.5, 23.0, SEA),
    ("ormuz", "Ormuz", 56.3, 27.0, PLACE),
    ("costa_do_guzerate", "Costa do Guzerate", 68.5, 20.5, SEA),
    ("goa", "Goa", 73.8, 15.5, PLACE),
    ("angediva", "Angediva", 74.0, 13.2, SEA),
    ("calecute", "Calecute", 75.8, 11.25, CALECUTE),
    ("cochim", "Cochim", 76.5, 8.8, PLACE),
    ("cabo_comorim", "Cabo Comorim", 77.8, 6.0, SEA),
    ("ceilao", "Ceilão", 81.0, 7.5, PLACE),
    ("maldivas", "Maldivas", 73.5, 2.5, PLACE),
    # The monsoons across the Arabian Sea
    ("moncao_sudoeste_1", "Monção de Sudoeste I", 48.0, -2.0, DASHED),
    ("moncao_sudoeste_2", "Monção de Sudoeste II", 57.0, 2.0, DASHED),
    ("moncao_sudoeste_3", "Monção de Sudoeste III", 66.0, 6.5, DASHED),
    ("moncao_nordeste_1", "Monção de Nordeste I", 67.0, 14.0, DASHED),
    ("moncao_nordeste_2", "Monção de Nordeste II", 60.0, 12.0, DASHED),
)

# Undirected lines: one move each, either way (rules 6.2).
LINES: tuple[tuple[str, str], ...] = (
    ("lisboa", "mar_dos_acores"),
    ("mar_dos_acores", "acores"),
    ("acores", "mar_dos_sargacos"),
    ("mar_dos_sargacos", "mar_oceano"),
    ("lisboa", "mar_de_portugal"),
    ("mar_de_portugal", "mar_das_canarias"),
    ("mar_das_canarias", "cabo_bojador"),
    ("mar_de_portugal", "madeira"),
    ("madeira", "mar_das_canarias"),
    ("madeira", "acores"),
    ("cabo_bojador", "rio_do_ouro"),
    ("rio_do_ouro", "arguim"),
    ("arguim", "cabo_branco"),
    ("cabo_branco", "cabo_verde"),
    ("cabo_branco", "rio_de_sanaga"),
    ("rio_de_sanaga", "guine"),
    ("cabo_verde", "guine"),
    ("cabo_verde", "mar_oceano"),
    ("guine", "serra_leoa"),
    ("serra_leoa", "cabo_das_palmas"),
    ("cabo_das_palmas", "mina"),
    ("mina", "golfo_da_guine"),
    ("golfo_da_guine", "fernando_po"),
    ("golfo_da_guine", "sao_tome"),
    ("fernando_po", "sao_tome"),
    ("sao_tome", "cabo_lopo_goncalves"),
    ("cabo_lopo_goncalves", "congo"),
    ("congo", "costa_de_angola"),
    ("costa_de_angola", "cabo_negro"),
    ("cabo_negro", "cabo_da_cruz"),
    ("cabo_da_cruz", "angra_pequena"),
    ("angra_pequena", "cabo_da_volta"),
    ("cabo_da_volta", "cabo_da_boa_esperanca"),
    ("mar_oceano", "calmarias"),
    ("calmarias", "serra_leoa"),
    ("calmarias", "ascensao"),
    ("calmarias", "mar_do_brasil"),
    ("mar_do_brasil", "vera_cruz"),
    ("ascensao", "corrente_equatorial"),
    ("corrente_equatorial", "vera_cruz"),
    ("ascensao", "santa_helena"),
    ("ascensao", "sao_tome"),
    ("santa_helena", "costa_de_angola"),
    ("santa_helena", "tristao_da_cunha"),
    ("vera_cruz", "abrolhos"),
    ("abrolhos", "mar_do_sul"),
    ("mar_do_sul", "tristao_da_cunha"),
    ("tristao_da_cunha", "ventos_do_oeste"),
    ("ventos_do_oeste", "mar_do_cabo"),
    ("mar_do_cabo", "cabo_da_boa_esperanca"),
    ("cabo_da_boa_esperanca", "angra_de_sao_bras"),
    ("angra_de_sao_bras", "rio_do_infante"),
    ("rio_do_infante", "natal"),
    ("natal", "terra_da_boa_gente"),
    ("terra_da_boa_gente", "sofala"),
    ("sofala", "rio_dos_bons_sinais"),
    ("rio_dos_bons_sinais", "mocambique"),
    ("mocambique", "canal_de_mocambique"),
    ("canal_de_mocambique", "corrente_das_agulhas"),
    ("corrente_das_agulhas", "natal"),
    ("mocambique", "sao_lourenco"),
    ("sao_lourenco", "mascarenhas"),
    ("mascarenhas", "chagos"),
    ("chagos", "maldivas"),
    ("mocambique", "cabo_delgado"),
    ("cabo_delgado", "quiloa"),
    ("quiloa", "zanzibar"),
    ("zanzibar", "mombaca"),
    ("mombaca", "melinde"),
    ("melinde", "costa_dos_somalis"),
    ("costa_dos_somalis", "mogadoxo"),
    ("mogadoxo", "cabo_guardafui"),
    ("cabo_guardafui", "socotora"),
    ("socotora", "mar_arabico"),
    ("mar_arabico", "golfo_de_oma"),
    ("golfo_de_oma", "ormuz"),
    ("mar_arabico", "costa_do_guzerate"),
    ("costa_do_guzerate", "goa"),
    ("goa", "angediva"),
    ("angediva", "calecute"),
    ("calecute", "cochim"),
    ("cochim", "cabo_comorim"),
    ("cabo_comorim", "ceilao"),
    ("cochim", "maldivas"),
    ("cabo_comorim", "maldivas"),
    ("melinde", "moncao_sudoeste_1"),
    ("moncao_sudoeste_1", "moncao_sudoeste_2"),
    ("moncao_sudoeste_2", "moncao_sudoeste_3"),
    ("moncao_sudoeste_3", "calecute"),
    ("goa", "moncao_nordeste_1"),
    ("moncao_nordeste_1", "moncao_nordeste_2"),
    ("moncao_nordeste_2", "socotora"),
)

# Arrows (winds and currents): (from, to, dashed circles skipped on the way).
# Following one costs a single move; the skipped circles are not passed (6.3).
ARROWS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    # The Canary current carries ships south along Africa.
    ("lisboa", "cabo_bojador", ("mar_de_portugal", "mar_das_canarias")),
    # The westerlies bring the volta do mar home from the Azores.
    ("acores", "lisboa", ("mar_dos_acores",)),
    # The South Equatorial current runs west to Vera Cruz.
    ("ascensao", "vera_cruz", ("corrente_equatorial",)),
    # The westerlies of the far south run east to the Cape.
    ("abrolhos", "tristao_da_cunha", ("mar_do_sul",)),
    ("tristao_da_cunha", "cabo_da_boa_esperanca", ("ventos_do_oeste", "mar_do_cabo")),
    # The Benguela current runs north along south-west Africa.
    ("cabo_da_volta", "cabo_negro", ("angra_pequena", "cabo_da_cruz")),
    # The Agulhas current runs south through the Mozambique channel.
    ("mocambique", "natal", ("canal_de_mocambique", "corrente_das_agulhas")),
    # The south-west monsoon, with the pilot from Melinde, to Calecute.
    ("melinde", "calecute", ("moncao_sudoeste_1", "moncao_sudoeste_2", "moncao_sudoeste_3")),
    # The north-east monsoon back to Africa.
    ("goa", "socotora", ("moncao_nordeste_1", "moncao_nordeste_2")),
)

GREEN = "green"
YELLOW = "yellow"

# Discovery places: id -> (card colour, points). Points rise with distance
# from Lisboa; the green cards are the far places, beyond the Cape.
DISCOVERIES: dict[str, tuple[str, int]] = {
    "cabo_bojador": (YELLOW, 1),
    "madeira": (YELLOW, 1),
    "acores": (YELLOW, 1),
    "arguim": (YELLOW, 1),
    "cabo_verde": (YELLOW, 1),
    "guine": (YELLOW, 1),
    "serra_leoa": (YELLOW, 1),
    "ascensao": (YELLOW, 1),
    "vera_cruz": (YELLOW, 2),
    "santa_helena": (YELLOW, 2),
    "sao_tome": (YELLOW, 2),
    "mina": (YELLOW, 2),
    "fernando_po": (YELLOW, 2),
    "tristao_da_cunha": (YELLOW, 2),
    "congo": (YELLOW, 3),
    "cabo_negro": (YELLOW, 3),
    "angra_de_sao_bras": (GREEN, 3),
    "rio_do_infante": (GREEN, 3),
    "natal": (GREEN, 3),
    "sofala": (GREEN, 4),
    "mocambique": (GREEN, 4),
    "sao_lourenco": (GREEN, 4),
    "quiloa": (GREEN, 4),
    "mombaca": (GREEN, 5),
    "maldivas": (GREEN, 5),
    "melinde": (GREEN, 5),
    "cochim": (GREEN, 5),
    "ceilao": (GREEN, 5),
    "mogadoxo": (GREEN, 6),
    "goa": (GREEN, 6),
    "socotora": (GREEN, 6),
    "ormuz": (GREEN, 6),
}

# Cube colours in the order of the player card's slots (and of views).
COLOURS: tuple[str, ...] = ("red", "brown", "yellow", "blue", "white", "pink", "black", "green")

# Cube places: colour -> the one place holding that colour's cubes.
CUBE_PLACES: dict[str, str] = {
    "red": "guine",
    "brown": "vera_cruz",
    "yellow": "mina",
    "blue": "congo",
    "white": "sofala",
    "pink": "mombaca",
    "black": "cochim",
    "green": "ceilao",
}

# The player card: points per slot, rising with the distance of the cube's
# place (the rules' fig. 5, 5 + 6 + 7 + 10 = 28, is yellow+blue+white+green).
SLOT_VALUES: dict[str, int] = {
    "red": 3,
    "brown": 4,
    "yellow": 5,
    "blue": 6,
    "white": 7,
    "pink": 8,
    "black": 9,
    "green": 10,
}

# Which caravel (1-4) carries which two slots. Rules fig. 4: caravel 1 holds
# the black and the red cube. Rules fig. 5: a fleet with caravel 3 sunk (its
# cubes went back at once, 9.5) delivers 5 + 6 + 7 + 10, so yellow, blue, white
# and green ride on caravels 2 and 4, and caravel 3 holds brown and pink.
CARAVEL_SLOTS: dict[int, tuple[str, str]] = {
    1: ("red", "black"),
    2: ("yellow", "white"),
    3: ("brown", "pink"),
    4: ("blue", "green"),
}
# The card of caravelas-1 and caravelas-2, kept so their records replay: it put
# yellow and white on caravel 3, which made fig. 5 impossible.
CARAVEL_SLOTS_BEFORE_3: dict[int, tuple[str, str]] = {
    1: ("red", "black"),
    2: ("brown", "pink"),
    3: ("yellow", "white"),
    4: ("blue", "green"),
}

CUBES_PER_COLOUR = 4
# Green cubes in play by player count (rules 12); Jerónimos has one circle each.
GREEN_CUBES = {2: 3, 3: 4, 4: 5}

# The 48 movement cards: value -> number of cards.
MOVEMENT_DECK: dict[int, int] = {1: 10, 2: 12, 3: 12, 4: 8, 5: 6}
HAND_SIZE = 4

# The die: six faces, two of them "1" (a caravel sinks), the rest "0".
DIE_FACES: tuple[int, ...] = (0, 0, 0, 0, 1, 1)

BLACK_DISCS = 6
END_SCORE = 100
# The printed game has no last round: fleets that never score would sail for ever.
# A ladder match must end, so the game ends after this round (house data, far past
# any real game: random play ends by round 240 at the latest in 60 seeded games).
MAX_ROUNDS = 400
