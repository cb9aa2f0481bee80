"""How users of an imported API word their requests: frames per kind of operation, the reasons people give,
and requests its tools cannot serve.

The frames are filled with the API's own nouns (``{noun}``, ``{plural}``), its title (``{api}``) and the
slots of the request (``{param}`` for a value the user gives, ``{owner}`` for the record a list belongs
to). A request is one frame, sometimes with a reason before or after it ("I'm cleaning up after the
migration."), so two tasks on one API rarely share their first sentence; people writing to an API
assistant seldom greet, and thank it less often still (:data:`DEVELOPER_REGISTER`).
"""

from __future__ import annotations

import itertools
import re
from functools import cache

LIST_ASKS = (
    "which {plural} are there{owner}?", "can you show me the {plural}{owner}?", "please list the {plural}{owner}",
    "what {plural} do we have{owner}?", "pull up the {plural}{owner}", "I'd like to see the {plural}{owner}",
    "give me a rundown of the {plural}{owner}", "list every {noun}{owner}, please", "what {plural} exist{owner}?",
    "can you show me the current {plural}{owner}?", "show the {plural}{owner}", "which {plural} have been set up{owner}?",
    "could you list out the {plural}{owner}?", "I need the list of {plural}{owner}",
    "what's in place{owner} in terms of {plural}?", "enumerate the {plural}{owner} for me",
    "what {plural} are set up{owner} at the moment?", "quick check: which {plural} do we have{owner}?",
    "mind listing the {plural}{owner}?", "I want an overview of the {plural}{owner}", "show me all {plural}{owner}",
    "can I get a list of the {plural}{owner}?", "which {plural} exist{owner} right now?",
    "what does the list of {plural}{owner} look like?", "dump the {plural}{owner}", "show all current {plural}{owner}",
    "list whatever {plural} there are{owner}", "walk me through the {plural}{owner}",
    "tell me which {plural} we've got{owner}", "fetch the list of {plural}{owner}", "I'd like the full list of {plural}{owner}",
    "which {plural} are configured{owner}?",
    "{plural}{owner}: which ones do we have?", "list {plural}{owner}", "show every {noun}{owner}",
    "which {plural} are around{owner}?", "pull up all {plural}{owner}", "which {plural}{owner} are there at all?",
    "show what {plural} we've got{owner}", "which {plural} have we set up{owner}?", "list every single {noun}{owner}",
    "show the full set of {plural}{owner}", "which {plural} can you find{owner}?", "enumerate every {noun}{owner}",
    "pull up every {noun}{owner}",
)
FILTER_ASKS = (
    "which {plural}{owner} have the {field} {value}?", "can you show me the {plural}{owner} whose {field} is {value}?",
    "list the {plural}{owner} with {field} {value}", "I only want the {plural}{owner} where the {field} is {value}",
    "find the {plural}{owner} that have {value} as their {field}", "any {plural}{owner} with the {field} {value}?",
    "show only the {plural}{owner} with {field} {value}", "which of the {plural}{owner} have {value} as {field}?",
    "filter the {plural}{owner} to {field} {value}", "get me the {plural}{owner} with the {field} set to {value}",
    "are there {plural}{owner} whose {field} is {value}?", "list {plural}{owner} where {field} = {value}",
    "show only {plural}{owner} having {field} {value}", "which {plural}{owner} match {field} {value}?",
    "show {plural}{owner} whose {field} equals {value}", "which {plural}{owner} have {value} for their {field}?",
    "list {plural}{owner} by {field} {value}",
)
COUNT_ASKS = (
    "how many {plural} are there{owner}?", "can you count the {plural}{owner} for me?",
    "what's the number of {plural}{owner}?", "how many {plural} do we have{owner}?",
    "give me a count of the {plural}{owner}", "how many {plural}{owner} are set up right now?",
    "do you know how many {plural} exist{owner}?", "count the {plural}{owner}, please",
    "what's the total number of {plural}{owner}?", "how many {plural}{owner} exist at this point?",
    "quick count of the {plural}{owner}?", "I need a headcount of the {plural}{owner}",
    "tally up the {plural}{owner}",
    "number of {plural}{owner}?", "how big is our set of {plural}{owner}?", "count up every {noun}{owner}",
    "what's our {noun} count{owner}?", "total {plural}{owner}?",
)
GET_ASKS = (
    "what's the {field} of {target}?", "can you tell me the {field} of {target}?", "I need the {field} of {target}",
    "what {field} does {target} have?", "look up the {field} of {target} for me", "check the {field} of {target}",
    "could you find out the {field} of {target}?", "what is {target}'s {field}?", "get me the {field} for {target}",
    "do you know the {field} of {target}?",
    "which {field} is set on {target}?", "pull the {field} of {target}", "remind me of the {field} of {target}",
    "what does {target} say for its {field}?", "I'm after the {field} of {target}", "find the {field} for {target}",
    "tell me {target}'s {field}", "what's {target} showing as its {field}?", "fetch the {field} of {target}",
    "double-check the {field} of {target} for me",
    "need {target}'s {field}", "what {field} was given to {target}?",
    "read me the {field} on {target}", "look into {target} and report its {field}", "{field} of {target}?",
    "what value does {target} hold for {field}?", "what {field} is recorded for {target}?",
)
DELETE_ASKS = (
    "please delete {target}", "I no longer need {target}; please remove it", "can you get rid of {target}?",
    "remove {target}", "delete {target} for me", "could you take down {target}?", "go ahead and delete {target}",
    "I want {target} deleted", "clean up {target}, it's not needed anymore",
    "drop {target}", "we're done with {target}, delete it", "please tear down {target}",
    "I'd like {target} removed", "get {target} deleted, please", "{target} has to go", "wipe {target}",
    "delete {target} - we don't use it", "retire {target} by deleting it",
    "kill off {target}", "scrap {target}", "purge {target}", "take away {target}", "axe {target}",
)
UPDATE_ASKS = (
    "please change {changes} for {target}", "can you update {target}? Set {changes}", "set {changes} on {target}",
    "update {target} so that {changes_are}", "could you change {changes} for {target}?",
    "I need {target} updated: {changes}", "on {target}, please set {changes}", "switch {changes} for {target}",
    "on {target}, change {changes}", "change {target}: {changes}",
    "modify {target}: {changes}", "adjust {target} so that {changes_are}", "for {target}, change {changes}",
    "edit {target} and set {changes}", "{target} needs {changes_have}", "tweak {target}: {changes}",
    "please make sure {changes_are} on {target}", "go into {target} and set {changes}",
    "change {changes} on {target}", "update {changes} on {target}", "have {target} use {changes_have}",
    "fix {target} so that {changes_are}", "revise {target}: {changes}", "{target} should have {changes_have}",
)
CREATE_ASKS = (
    "please create {a_noun} with {details}", "I'd like to add {a_noun}: {details}", "set up {a_noun} with {details}",
    "can you create {a_noun} with {details}?", "add {a_noun}, {details}", "create {a_noun} for me with {details}",
    "we need {a_noun} with {details}", "could you make {a_noun}? Use {details}", "spin up {a_noun} with {details}",
    "register {a_noun} with {details}",
    "make a new {noun}: {details}", "create one more {noun} with {details}", "add {a_noun} using {details}",
    "I need {a_noun} created with {details}", "new {noun} please, {details}", "provision {a_noun} with {details}",
    "put in {a_noun} with {details}", "go ahead and create {a_noun} with {details}",
    "can we get a new {noun}? It should have {details}", "there should be {a_noun} with {details}; please add it",
    "create {a_noun}. It needs {details}", "I want {a_noun} that has {details}",
    "new {noun}: {details}", "file {a_noun} with {details}", "add one {noun}, {details}",
    "stand up {a_noun} using {details}", "open {a_noun} with {details}", "create {a_noun}: {details}",
    "start {a_noun} with {details}", "get {a_noun} made, {details}", "one new {noun}, with {details}",
)
# several creates asked at once: the details name each record's value ("display name A and B")
CREATE_MANY_ASKS = (
    "please create {plural} with {details}", "I'd like to add {plural} with {details}",
    "set up {plural} with {details}", "can you create {plural} with {details}?", "add {plural}: {details}",
    "we need {plural} with {details}", "could you make some {plural}? Use {details}",
    "spin up {plural} with {details}", "register {plural} with {details}", "make these {plural}: {details}",
    "I need {plural} created with {details}", "provision {plural} with {details}",
    "go ahead and create {plural} with {details}", "can we get new {plural}? They should have {details}",
    "create one {noun} each for {details}", "there should be {plural} with {details}; please add them",
    "new {plural}: {details}", "file {plural} with {details}", "stand up {plural} using {details}",
    "open {plural} with {details}", "add these {plural}, {details}", "create {plural}: {details}",
)
CREATE_BARE_ASKS = (
    "please set up {a_noun} for me", "can you create {a_noun}?", "create {a_noun}, please",
    "I need a new {noun}", "add {a_noun} for me", "make a fresh {noun}", "we need one more {noun}",
    "spin up another {noun}", "could you add {a_noun}?", "go ahead and create {a_noun}",
    "I'd like {a_noun} created", "provision {a_noun}", "get me a new {noun}", "set up {a_noun} with the defaults",
    "new {noun}", "one more {noun}", "create {a_noun}", "open a fresh {noun}", "add another {noun}",
    "stand up {a_noun}", "file a new {noun}",
)
# how a user says which records the rest of the request is about ("I'm looking at the jobs for tenant t-1")
LIST_CONTEXTS = (
    "I'm looking at the {plural}{owner}", "I'm working on the {plural}{owner}", "I have the {plural}{owner} open",
    "I'm going through the {plural}{owner}", "I'm sorting out the {plural}{owner}", "I'm reviewing the {plural}{owner}",
    "I'm busy with the {plural}{owner}", "I'm in the {plural}{owner}",
    "I've got the {plural}{owner} up", "I'm checking on the {plural}{owner}", "I'm cleaning up the {plural}{owner}",
    "I'm auditing the {plural}{owner}",
    "I'm dealing with the {plural}{owner}", "I'm focused on the {plural}{owner}", "I'm tidying the {plural}{owner}",
    "question on the {plural}{owner}", "about our {plural}{owner}",
)
# what a user says around a request: why they ask (kept short; most requests carry none)
REASONS = {
    "list": ("I'm auditing what we have", "I'm doing some cleanup", "I need an overview before the migration",
             "my lead asked for an inventory", "I'm double-checking the setup after yesterday's deploy",
             "I'm writing up the quarterly review", "I want to make sure nothing is missing",
             "I'm onboarding onto this project", "we're planning the move to the new account",
             "I'm looking into a billing question", "I'm checking what the old team left behind",
             "the security review is on Thursday", "finance wants numbers by Friday",
             "I'm comparing staging with production", "I'm updating the architecture diagram",
             "someone in the incident channel asked", "I'm prepping for the ops sync",
             "the contractor needs to know what exists", "I'm building a cost report",
             "compliance asked for a snapshot", "I'm reconciling it with our Terraform state",
             "the new hire wants to see the setup", "I'm sanity-checking before the freeze"),
    "get": ("I'm debugging an issue", "I need it for a support ticket", "a customer asked about it",
            "I'm filling in the runbook", "I'm checking before I change anything", "it came up in standup",
            "I'm reviewing the config", "the dashboard looks off", "I'm preparing the handover notes",
            "the on-call engineer asked me", "I'm writing the postmortem", "an alert fired on it last night",
            "I'm verifying a change from this morning", "audit wants the exact value",
            "I'm comparing it with what the docs say", "the vendor asked for it"),
    "create": ("we're onboarding a new team", "it's for the new project", "we need it before the launch",
               "it's for the staging setup", "I'm setting up the pilot", "the old one is being retired",
               "it's for a demo next week", "we're splitting the workload", "the QA team needs their own",
               "it's for the load test on Monday", "we're opening a second region",
               "the partner integration goes live soon", "I'm reproducing a bug", "it's part of the rollout plan"),
    "update": ("the old value was wrong", "we renamed the team", "it's part of the cleanup", "the owner changed",
               "we're standardising the settings", "the launch date moved", "it was set up in a hurry",
               "the audit flagged it", "a customer complained", "we're aligning it with production",
               "the previous config caused alerts", "legal asked for the change"),
    "delete": ("it was left over from a test", "we migrated off it", "it was created by mistake",
               "nobody has used it in months", "it's a duplicate", "we're cutting costs", "the pilot is over",
               "the project was cancelled", "it's blocking the cleanup script", "security asked us to remove it",
               "the customer churned", "we're consolidating resources"),
}
REASON_SHARE = 0.35  # how often a request carries a reason
# how a reason leads into the request after it
REASON_JOINERS = (", so ", ". ", " - ", ", so ", "; ", ". ", " so ")
DEVELOPER_REGISTER = "developer"
# requests an API assistant cannot serve: off-topic ones and near-domain ones its tools do not cover
NEAR_DOMAIN = (
    "Can you email the list of {plural} to my manager?", "What does {api} charge per month for {plural}?",
    "Can you book a meeting with the team that owns the {plural}?", "Is {api} better than its competitors?",
    "Can you write the documentation for our {plural}?", "Will {api} have an outage this weekend?",
    "Can you print a report of the {plural} and mail it to the office?", "Who at {api} should I call about pricing?",
    "Can you open a support case with {api} about the {plural}?", "Can you translate the {noun} docs into Spanish?",
    "What's the roadmap for {api} next year?", "Can you explain the legal terms of {api}'s contract?",
    "Can you draw a diagram of how the {plural} fit together?", "Can you estimate how much we'll spend on {plural} next year?",
    "Could you set a reminder to review the {plural} in two weeks?", "Can you post an update about the {plural} to our team chat?",
    "Which {noun} setup would a consultant recommend for a bank?", "Can you train me on how {api} works?",
    "Can you forward the {noun} details to our auditor?", "Could you agree a maintenance window for the {plural} with our customers?",
    "Can you call the on-call engineer about the {plural}?", "What's the SLA {api} promises for {plural}?",
    "Can you fax the {noun} settings to our lawyer?", "Could you make a slide deck about our {plural}?",
    "Can you compare {api} with what our old vendor offered for {plural}?",
    "Can you order a printed manual for {api}?", "Who else in the company uses the {plural}?",
    "Could you ask finance to approve more {plural}?", "Can you text me when a {noun} changes?",
    "How do other companies name their {plural}?", "Can you get me a discount on {api}?",
    "Who invented the idea of {plural} in the first place?", "Should we hire a consultant for our {plural}?",
    "Write a poem about our {plural}", "Book a training course on {api} for the team",
    "What will {plural} look like in ten years?", "Ring {api}'s sales team and ask about {plural}",
    "Order business cards that mention our {plural}", "Summarise last year's board meeting about {plural}",
)
_EVERYDAY_FRAMES = (
    "What will the weather be like in {city} {when}?", "Can you recommend {a_cuisine} restaurant in {city}?",
    "How long is the flight from {city} to {city2}?", "What's there to do in {city} {when}?",
    "What time is it in {city} when it's {hour} in {city2}?", "Is {city} worth a visit {when}?",
    "How do I say '{phrase}' in {language}?", "Can you recommend a good {thing} for {whom}?",
    "What's a good recipe for {dish} for {count} people?", "Can you explain {topic} to {audience}?",
    "Can you help me write {writing} for {whom}?", "Who won the {sport} game {past}?",
    "How many {conversion}?", "What's a good name for {pet}?",
    "How do I get {stain} out of {garment}?",
    "Any tips for a first trip to {city} {when}?", "Which neighbourhood of {city} is best for {whom}?",
    "Give me {a_cuisine} dinner idea for {count} people", "Write {writing} for {whom}",
    "Is {dish} hard to make?", "How would I write '{phrase}' in {language}?",
    "Any {thing} you'd suggest for {whom}?",
    "What should {whom} know about {topic}?", "Which {sport} team is top of the league right now?",
    "Convert this for me: how many {conversion}?", "Where should I stay in {city} {when}?",
    "Any ideas for naming {pet}?", "I got {stain} on {garment} - what now?",
)
_EVERYDAY_FILLS = {
    "city": ("Porto", "Denver", "Osaka", "Nairobi", "Montreal", "Krakow", "Valencia", "Auckland", "Lima", "Tallinn",
             "Hanoi", "Glasgow", "Austin", "Seville", "Bergen", "Cusco", "Tbilisi", "Ljubljana", "Hobart", "Quebec City",
             "Marrakesh", "Busan", "Cork", "Bologna", "Savannah"),
    "city2": ("Lisbon", "Chicago", "Seoul", "Cape Town", "Vancouver", "Prague", "Athens", "Sydney", "Bogota"),
    "when": ("this weekend", "in October", "next week", "on Saturday", "over the holidays", "in early spring"),
    "a_cuisine": ("a vegetarian", "a seafood", "an Ethiopian", "a ramen", "a tapas", "a family-friendly",
                  "a late-night", "a cheap"),
    "hour": ("9 am", "noon", "5 pm", "8 pm", "midnight"),
    "phrase": ("good morning", "where is the station", "thank you very much", "how much is this", "see you tomorrow",
               "I'm allergic to nuts", "the bill, please", "nice to meet you", "where is the pharmacy", "happy birthday"),
    "language": ("Korean", "Portuguese", "Finnish", "Turkish", "Dutch", "Swahili", "Polish", "Greek", "Vietnamese",
                 "Hungarian", "Tagalog", "Czech"),
    "thing": ("laptop", "pair of running shoes", "beginner guitar", "espresso machine", "history podcast", "board game",
              "book on negotiation", "sci-fi series", "rain jacket", "houseplant", "camera", "travel backpack"),
    "whom": ("my dad", "a ten-year-old", "my partner", "a friend who just moved", "a new colleague", "my grandmother",
             "a student on a budget", "my team", "a beginner", "my neighbour"),
    "dish": ("a vegetarian lasagna", "banana bread", "a quick chicken curry", "pad thai", "a lemon tart", "shakshuka",
             "a mushroom risotto", "fish tacos", "a lentil soup", "pancakes"),
    "count": ("two", "four", "six", "ten"),
    "topic": ("compound interest", "how vaccines work", "the offside rule", "black holes", "how tides work",
              "inflation", "photosynthesis", "how mortgages work", "the electoral college", "how batteries work"),
    "audience": ("a child", "my grandmother", "a complete beginner", "a teenager", "someone who hates maths"),
    "writing": ("a birthday poem", "a wedding toast", "a thank-you note", "a short bio", "a limerick",
                "a retirement card message", "an apology text"),
    "sport": ("football", "basketball", "cricket", "tennis", "hockey", "rugby", "baseball", "volleyball"),
    "past": ("last night", "on Sunday", "yesterday", "last weekend"),
    "conversion": tuple(f"{to} are in {n} {unit}" for n in ("3", "5", "12", "20", "70", "2.5")
                       for unit, to in (("miles", "kilometres"), ("ounces", "grams"), ("cups", "millilitres"),
                                        ("pounds", "kilograms"), ("feet", "metres"), ("gallons", "litres"))),
    "pet": ("a golden retriever puppy", "a grey kitten", "a pair of goldfish", "a rescue greyhound", "a black rabbit",
            "a parrot", "a tabby cat", "a corgi", "a tortoise", "a hamster"),
    "stain": ("red wine", "coffee", "grass stains", "ink", "olive oil", "blood", "chocolate", "curry sauce"),
    "garment": ("a white shirt", "jeans", "a wool jumper", "a silk scarf", "a sofa cushion", "a carpet"),
}
PER_FRAME = 150


@cache
def everyday_requests() -> tuple[str, ...]:
    """Everyday requests no API serves: each frame of :data:`_EVERYDAY_FRAMES` with at most
    :data:`PER_FRAME` of its fillings, evenly spread (a few hundred in all, no frame outweighing the rest, so
    two off-topic rows of one build seldom ask the same thing)."""
    out = []
    for frame in _EVERYDAY_FRAMES:
        slots = re.findall(r"{(\w+)}", frame)
        fillings = list(itertools.product(*(_EVERYDAY_FILLS[slot] for slot in slots)))
        step = max(1, len(fillings) // PER_FRAME)
        for values in fillings[::step][:PER_FRAME]:
            out.append(frame.format(**dict(zip(slots, values, strict=True))))
    return tuple(out)


OFF_TOPIC = (
    "Can you suggest a good podcast for my commute?", "What will the weather be like in Porto on Saturday?",
    "Can you help me plan a birthday dinner for six people?", "How many tablespoons are in a cup?",
    "Who directed the film that won best picture last year?", "Can you translate 'good morning' into Korean?",
    "What's a good warm-up before a 10k run?", "Can you recommend a novel set in Iceland?",
    "What's the best way to get from the airport to the city centre in Lisbon?", "How do I fix a squeaky door hinge?",
    "Can you write a limerick about a cat?", "What should I pack for a week of hiking in Norway?",
    "Is it going to rain in Denver tomorrow?", "Can you recommend a laptop for video editing?",
    "How long do I cook a soft-boiled egg?", "What's the capital of Canada?", "Can you explain how vaccines work?",
    "What's a good name for a golden retriever puppy?", "How do I get red wine out of a carpet?",
    "Can you teach me a few chess openings?", "What time does the sun set in Osaka today?",
    "Can you suggest a gift for my sister's 30th birthday?", "How do I start learning the guitar?",
    "What's the difference between a latte and a flat white?", "Can you help me with my tax return?",
    "Who won the football match last night?", "How many calories are in a banana?",
    "Can you recommend a good sci-fi series to watch?", "What's a quick vegetarian dinner idea?",
    "How do I say 'thank you' in Japanese?", "Can you convert 70 degrees Fahrenheit to Celsius?",
)
