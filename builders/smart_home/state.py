"""Seeded state factory for the smart home domain: accounts, homes, rooms, devices, scenes, routines, energy."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from covert.env.people import personal_email

FIRST_NAMES = (
    "Olivia", "Liam", "Amelia", "Noah", "Isla", "Arjun", "Freya", "Mateo", "Sienna", "Kofi", "Niamh", "Lars",
    "Zara", "Ethan", "Maeve", "Tariq", "Hannah", "Ruben", "Leila", "Callum", "Ingrid", "Dev", "Chloe", "Jonas",
)
LAST_NAMES = (
    "Walsh", "Bennett", "Okoye", "Fischer", "Murphy", "Sharma", "de Vries", "Campbell", "Novak", "Brennan",
    "Lindqvist", "Hughes", "Mensah", "Tremblay", "Kaur", "Byrne", "Schneider", "Patel", "MacLeod", "Dubois",
)
# city, country, IANA time zone, currency, postcode pattern (# digit, @ letter), streets
CITIES = (
    ("Manchester", "GB", "Europe/London", "GBP", "M## #@@", ("Wilmslow Road", "Burton Road", "Palatine Road")),
    ("Bristol", "GB", "Europe/London", "GBP", "BS# #@@", ("Gloucester Road", "Whiteladies Road", "North Street")),
    ("Leeds", "GB", "Europe/London", "GBP", "LS## #@@", ("Chapel Allerton Lane", "Otley Road", "Harrogate Road")),
    ("Edinburgh", "GB", "Europe/London", "GBP", "EH# #@@", ("Marchmont Crescent", "Leith Walk", "Comely Bank Road")),
    ("Dublin", "IE", "Europe/Dublin", "EUR", "D0# @#@#", ("Ranelagh Road", "Leinster Road", "Clontarf Road")),
    ("Cork", "IE", "Europe/Dublin", "EUR", "T12 @#@#", ("Douglas Road", "Sundays Well Road", "Blackrock Road")),
    ("Utrecht", "NL", "Europe/Amsterdam", "EUR", "35## @@", ("Oudegracht", "Biltstraat", "Amsterdamsestraatweg")),
    ("Munich", "DE", "Europe/Berlin", "EUR", "80###", ("Leopoldstraße", "Nymphenburger Straße", "Sendlinger Straße")),
    ("Toronto", "CA", "America/Toronto", "CAD", "M#@ #@#", ("Queen Street West", "Roncesvalles Avenue", "Danforth Avenue")),
    ("Vancouver", "CA", "America/Vancouver", "CAD", "V#@ #@#", ("Commercial Drive", "West 4th Avenue", "Main Street")),
)
TARIFFS = {"GBP": (0.22, 0.29), "EUR": (0.27, 0.39), "CAD": (0.10, 0.17)}
HOME_NAMES = ("Family Home", "Main House", "Lake Cabin", "City Flat", "Beach House", "Cottage", "Holiday Let", "Mum's Place")

# room name -> (floor, [(kind, device name), ...]); the first room of every home is the Entrance Hall
ROOMS: dict[str, tuple[int, tuple[tuple[str, str], ...]]] = {
    "Entrance Hall": (0, (("lock", "Front Door"), ("thermostat", "Hallway Thermostat"), ("light", "Hall Light"))),
    "Living Room": (0, (("light", "Ceiling Light"), ("light", "Floor Lamp"), ("speaker", "Living Room Speaker"),
                        ("blinds", "Living Room Blinds"), ("plug", "TV Plug"))),
    "Kitchen": (0, (("light", "Pendant Lights"), ("light", "Under-Cabinet Lights"), ("plug", "Coffee Machine Plug"),
                    ("speaker", "Kitchen Speaker"))),
    "Dining Room": (0, (("light", "Dining Table Light"), ("blinds", "Dining Room Blinds"))),
    "Main Bedroom": (1, (("light", "Bedside Lamp"), ("light", "Bedroom Ceiling Light"), ("blinds", "Bedroom Blinds"),
                         ("thermostat", "Bedroom Thermostat"))),
    "Kids' Room": (1, (("light", "Night Light"), ("plug", "Humidifier Plug"), ("blinds", "Kids' Room Blinds"))),
    "Home Office": (1, (("light", "Desk Lamp"), ("plug", "Space Heater Plug"), ("blinds", "Office Blinds"),
                        ("speaker", "Office Speaker"))),
    "Garage": (0, (("lock", "Garage Side Door"), ("light", "Garage Light"), ("plug", "Freezer Plug"))),
    "Patio": (0, (("lock", "Patio Door"), ("light", "String Lights"), ("plug", "Fountain Pump Plug"))),
    "Bathroom": (1, (("light", "Mirror Light"), ("plug", "Towel Rail Plug"))),
}

# kind -> [(manufacturer, model, connection, firmware, extra)]
MODELS: dict[str, tuple[tuple[str, str, str, str, Any], ...]] = {
    "light": (
        ("Philips Hue", "White and Color Ambiance A19", "Zigbee", "1.104.2", True),
        ("Philips Hue", "White A19", "Zigbee", "1.104.2", False),
        ("LIFX", "Color A19", "Wi-Fi", "3.90", True),
        ("IKEA", "TRADFRI LED E27 806lm", "Zigbee", "2.3.095", False),
        ("Nanoleaf", "Essentials A19", "Thread", "3.5.10", True),
    ),
    "thermostat": (
        ("Google Nest", "Learning Thermostat (3rd gen)", "Wi-Fi", "6.2-17", None),
        ("ecobee", "Smart Thermostat Premium", "Wi-Fi", "4.8.7.132", None),
        ("Honeywell Home", "T9 Smart Thermostat", "Wi-Fi", "03.01.24", None),
        ("tado", "Smart Thermostat X", "Thread", "112.1", None),
    ),
    "lock": (
        ("August", "Wi-Fi Smart Lock (4th gen)", "Wi-Fi", "2.6.3", None),
        ("Yale", "Assure Lock 2", "Z-Wave", "1.9.12", None),
        ("Nuki", "Smart Lock Pro", "Thread", "4.3.8", None),
        ("Schlage", "Encode Plus", "Thread", "1.02.14", None),
    ),
    "plug": (
        ("TP-Link Kasa", "KP125M", "Wi-Fi", "1.1.3", None),
        ("Eve", "Energy", "Thread", "3.4.1", None),
        ("Meross", "MSS110", "Wi-Fi", "6.3.22", None),
    ),
    "blinds": (
        ("IKEA", "FYRTUR", "Zigbee", "24.4.11", "battery"),
        ("Somfy", "Sonesse 40 RTS", "Z-Wave", "5.12", "mains"),
        ("Lutron", "Serena", "Clear Connect", "3.2.4", "battery"),
    ),
    "speaker": (
        ("Sonos", "Era 100", "Wi-Fi", "16.3", None),
        ("Sonos", "One SL", "Wi-Fi", "16.3", None),
        ("Google", "Nest Audio", "Wi-Fi", "3.72.1", None),
        ("Amazon", "Echo (4th gen)", "Wi-Fi", "8289219", None),
    ),
}
COLORS = ("warm white", "cool white", "daylight", "red", "orange", "yellow", "green", "blue", "purple", "pink")
PLAYLISTS = ("Morning Acoustic", "Jazz Classics", "BBC Radio 6 Music", "Lo-Fi Beats", "Top 50 Global",
             "Peaceful Piano", "RTE Radio 1", "Dinner Party Mix")
# plug name -> typical load in watts while on
PLUG_LOADS = {"TV Plug": 95.0, "Coffee Machine Plug": 38.0, "Humidifier Plug": 32.0, "Space Heater Plug": 1500.0,
              "Freezer Plug": 85.0, "Fountain Pump Plug": 40.0, "Towel Rail Plug": 150.0}
# kind -> daily kWh range, for the mains-powered devices (which meter energy)
DAILY_KWH = {"light": (0.02, 0.35), "plug": (0.1, 2.6), "thermostat": (3.5, 16.0), "speaker": (0.04, 0.22),
             "blinds": (0.01, 0.04)}
ENERGY_DAYS = 14

# scene name -> routine (name, time of day, recurrence) that schedules it
SCENE_ROUTINES = {
    "Good Morning": ("Weekday Wake-up", "06:45", "weekdays"),
    "Good Night": ("Lights Out", "23:15", "every day"),
    "Away": ("Leave for Work", "08:10", "weekdays"),
    "Movie Night": ("Saturday Film Night", "20:30", "weekends"),
    "Dinner Time": ("Dinner Bell", "18:30", "every day"),
    "Focus Time": ("Start of Workday", "09:00", "weekdays"),
}


def _hex(rng: random.Random, digits: int, seen: set[str], prefix: str) -> str:
    while True:
        value = f"{prefix}{rng.getrandbits(4 * digits):0{digits}x}"
        if value not in seen:
            seen.add(value)
            return value


def _street(rng: random.Random, country: str, streets: tuple[str, ...]) -> str:
    number, street = rng.randrange(1, 240), rng.choice(streets)
    return f"{street} {number}" if country in ("NL", "DE") else f"{number} {street}"


def _postcode(rng: random.Random, pattern: str) -> str:
    out = []
    for ch in pattern:
        if ch == "#":
            out.append(str(rng.randrange(10)))
        elif ch == "@":
            out.append(rng.choice("ABDEFGHJLNPQRSTUWXYZ"))
        else:
            out.append(ch)
    return "".join(out)


def _stamp(day: date, rng: random.Random, hours: tuple[int, int] = (0, 23)) -> str:
    return f"{day.isoformat()}T{rng.randint(*hours):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}Z"


def _device_state(rng: random.Random, kind: str, name: str, extra: Any, summer: bool) -> dict[str, Any]:
    if kind == "light":
        on = rng.random() < 0.45
        return {"power_state": "on" if on else "off", "brightness_pct": rng.choice((20, 35, 50, 65, 80, 100)),
                "current_color": rng.choice(COLORS) if extra and rng.random() < 0.4 else "warm white",
                "supports_color": bool(extra)}
    if kind == "thermostat":
        low, high = rng.choice(((5.0, 30.0), (7.0, 28.0), (10.0, 30.0), (16.0, 26.0), (12.0, 27.0)))
        mode = rng.choices(("heat", "cool", "auto", "eco", "off"), (1, 4, 2, 1, 3) if summer else (5, 0, 2, 2, 1))[0]
        target = {"eco": 16.0, "cool": rng.choice((22.0, 23.0, 24.0))}.get(mode, rng.choice((19.0, 19.5, 20.0, 21.0, 21.5)))
        return {"hvac_mode": mode, "target_temp_c": min(max(target, low), high),
                "current_temp_c": round(target + rng.uniform(-2.5, 1.5), 1), "humidity_pct": rng.randint(35, 62),
                "min_temp_c": low, "max_temp_c": high}
    if kind == "lock":
        door_open = rng.random() < 0.15
        return {"lock_state": "unlocked" if door_open or rng.random() < 0.35 else "locked",
                "door_state": "open" if door_open else "closed"}
    if kind == "plug":
        on = name == "Freezer Plug" or rng.random() < 0.5
        return {"power_state": "on" if on else "off", "power_w": PLUG_LOADS.get(name, 60.0) if on else 0.0}
    if kind == "blinds":
        return {"position_pct": rng.choice((0, 0, 25, 50, 100, 100))}
    on = rng.random() < 0.3
    return {"power_state": "on" if on else "off", "volume_pct": rng.choice((15, 20, 25, 30, 40, 55)),
            "now_playing": rng.choice(PLAYLISTS) if on else ""}


def _scene_actions(name: str, devices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Settings per device for one scene template, from the devices the home actually has."""
    actions = []
    for dev in devices:
        kind, room, state = dev["kind"], dev["_room"], dev["state"]
        settings: dict[str, Any] | None = None
        if name == "Movie Night" and room == "Living Room":
            settings = {"light": {"power_state": "on", "brightness_pct": 15},
                        "blinds": {"position_pct": 0},
                        "speaker": {"power_state": "on", "volume_pct": 35}}.get(kind)
        elif name == "Good Morning":
            if kind == "blinds":
                settings = {"position_pct": 100}
            elif kind == "light" and room in ("Main Bedroom", "Kitchen"):
                settings = {"power_state": "on", "brightness_pct": 60}
            elif kind == "thermostat":
                settings = {"hvac_mode": "heat", "target_temp_c": 21.0}
        elif name in ("Good Night", "Away"):
            if kind == "light":
                settings = {"power_state": "off"}
            elif kind == "lock":
                settings = {"lock_state": "locked"}
            elif kind == "thermostat":
                settings = {"hvac_mode": "eco", "target_temp_c": 16.0} if name == "Away" else {"target_temp_c": 18.0}
            elif kind == "speaker" or (kind == "plug" and name == "Away" and dev["name"] != "Freezer Plug"):
                settings = {"power_state": "off"}
        elif name == "Dinner Time" and kind == "light" and room in ("Kitchen", "Dining Room"):
            settings = {"power_state": "on", "brightness_pct": 70}
        elif name == "Focus Time" and room == "Home Office":
            if kind == "light":
                settings = {"power_state": "on", "brightness_pct": 100}
                if state.get("supports_color"):
                    settings["current_color"] = "daylight"
            elif kind == "speaker":
                settings = {"power_state": "off"}
        if settings is not None:
            if "target_temp_c" in settings:
                settings["target_temp_c"] = min(max(settings["target_temp_c"], state["min_temp_c"]), state["max_temp_c"])
            actions.append({"device_id": dev["device_id"], "settings": settings})
    return actions


def make_state(rng: random.Random, scale: int = 1) -> dict[str, Any]:
    """A few households per unit of scale, each with 1-2 homes of 3-4 rooms, devices, scenes and routines."""
    today = date(2026, 1, 5) + timedelta(days=rng.randrange(0, 300))
    now = _stamp(today, rng, (7, 21))
    seen: set[str] = set()
    accounts: dict[str, Any] = {}
    homes: dict[str, Any] = {}
    rooms: dict[str, Any] = {}
    devices: dict[str, Any] = {}
    scenes: dict[str, Any] = {}
    routines: dict[str, Any] = {}
    energy: dict[str, Any] = {}
    routine_counter = rng.randrange(20000, 60000)
    emails: set[str] = set()
    first_energy_day = today - timedelta(days=ENERGY_DAYS)

    for household in range(2 * scale):
        last = rng.choice(LAST_NAMES)
        people = []
        for _ in range(1 if rng.random() < 0.6 else 2):
            first = rng.choice(FIRST_NAMES)
            email = personal_email(rng, first, last, rng.randrange(1, 99))
            while email in emails:
                email = personal_email(rng, first, last, rng.randrange(100, 9999))
            emails.add(email)
            account_id = _hex(rng, 8, seen, "acct_")
            accounts[account_id] = {"account_id": account_id, "name": f"{first} {last}", "email": email, "home_ids": []}
            people.append(account_id)
        home_names = rng.sample(HOME_NAMES, 2 if household % 2 == 0 and rng.random() < 0.3 else 1)
        for home_name in home_names:
            home_id = _hex(rng, 8, seen, "home_")
            city, country, tz, currency, pattern, streets = rng.choice(CITIES)
            low, high = TARIFFS[currency]
            members = [{"account_id": people[0], "name": accounts[people[0]]["name"], "role": "owner"}]
            accounts[people[0]]["home_ids"].append(home_id)
            if len(people) > 1 and home_name == home_names[0]:
                members.append({"account_id": people[1], "name": accounts[people[1]]["name"], "role": "member"})
                accounts[people[1]]["home_ids"].append(home_id)
            homes[home_id] = {
                "home_id": home_id, "name": home_name,
                "address": {"street": _street(rng, country, streets), "city": city,
                            "postcode": _postcode(rng, pattern), "country": country},
                "timezone": tz, "presence": rng.choices(("home", "away"), (4, 1))[0], "members": members,
                "energy_tariff": {"price_per_kwh": round(rng.uniform(low, high), 3), "currency": currency},
            }
            home_devices: list[dict[str, Any]] = []
            room_names = ["Entrance Hall", *rng.sample([r for r in ROOMS if r != "Entrance Hall"], 2 if rng.random() < 0.75 else 3)]
            for room_name in room_names:
                floor, templates = ROOMS[room_name]
                room_id = _hex(rng, 8, seen, "room_")
                rooms[room_id] = {"room_id": room_id, "home_id": home_id, "name": room_name, "floor": floor}
                if room_name == "Entrance Hall":
                    chosen = list(templates[:2]) + ([templates[2]] if rng.random() < 0.5 else [])
                else:
                    chosen = rng.sample(templates, min(len(templates), rng.choice((1, 1, 2, 2, 3))))
                for kind, device_name in chosen:
                    maker, model, connection, firmware, extra = rng.choice(MODELS[kind])
                    device_id = _hex(rng, 8, seen, "dev_")
                    online = rng.random() > 0.12
                    seen_day = today if online else today - timedelta(days=rng.randint(0, 6))
                    device: dict[str, Any] = {
                        "device_id": device_id, "home_id": home_id, "room_id": room_id, "name": device_name,
                        "kind": kind, "manufacturer": maker, "model": model, "firmware": firmware,
                        "connection": connection, "online": online,
                        "last_seen": now if online else _stamp(seen_day, rng, (0, 6)),
                        "state": _device_state(rng, kind, device_name, extra, 6 <= today.month <= 8),
                    }
                    battery = kind == "lock" or extra == "battery"
                    if battery:
                        device["battery_pct"] = rng.randint(8, 100)
                    if kind == "plug":
                        device["load_w"] = PLUG_LOADS.get(device_name, 60.0)
                    devices[device_id] = device
                    home_devices.append({**device, "_room": room_name})
                    if kind in DAILY_KWH and not battery:
                        lo, hi = DAILY_KWH[kind]
                        base = rng.uniform(lo, hi)
                        if kind == "thermostat" and 5 <= today.month <= 9 and device["state"]["hvac_mode"] != "cool":
                            base *= 0.3
                        if device_name in PLUG_LOADS:
                            base = min(hi * 2, PLUG_LOADS[device_name] * rng.uniform(2, 8) / 1000)
                        energy[device_id] = {
                            "device_id": device_id, "first_date": first_energy_day.isoformat(),
                            "daily_kwh": [
                                round(base * rng.uniform(0.6, 1.4), 2) if first_energy_day + timedelta(days=i) <= seen_day
                                else 0.0 for i in range(ENERGY_DAYS)
                            ],
                        }
            home_scenes = []
            scene_cap = 2 if rng.random() < 0.8 else 3
            for scene_name in rng.sample(list(SCENE_ROUTINES), len(SCENE_ROUTINES)):
                actions = _scene_actions(scene_name, home_devices)
                if not actions:
                    continue
                scene_id = _hex(rng, 8, seen, "scene_")
                hour = int(SCENE_ROUTINES[scene_name][1][:2])
                scenes[scene_id] = {
                    "scene_id": scene_id, "home_id": home_id, "name": scene_name, "actions": actions,
                    "last_activated": _stamp(today - timedelta(days=rng.randint(1, 20)), rng, (hour, hour)) if rng.random() < 0.8 else "",
                }
                home_scenes.append(scene_id)
                if len(home_scenes) == scene_cap:
                    break
            for scene_id in rng.sample(home_scenes, min(len(home_scenes), rng.randint(1, 2))):
                routine_name, at, recurrence = SCENE_ROUTINES[scenes[scene_id]["name"]]
                routine_counter += 1
                routine_id = f"rtn_{routine_counter}"
                routines[routine_id] = {
                    "routine_id": routine_id, "home_id": home_id, "name": routine_name, "time_of_day": at,
                    "recurrence": recurrence, "scene_id": scene_id, "enabled": rng.random() < 0.85,
                    "created_at": _stamp(today - timedelta(days=rng.randint(10, 400)), rng),
                }
    return {
        "tables": {"accounts": accounts, "homes": homes, "rooms": rooms, "devices": devices, "scenes": scenes,
                   "routines": routines, "energy": energy, "meta": {"clock": {"today": today.isoformat(), "now": now}}},
        "counters": {"routines": routine_counter},
    }
