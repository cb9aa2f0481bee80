"""How users of an imported API word their requests: frames per kind of operation, the reasons people give,
and requests its tools cannot serve.

The frames are filled with the API's own nouns (``{noun}``, ``{plural}``), its title (``{api}``) and the
slots of the request (``{param}`` for a value the user gives, ``{owner}`` for the record a list belongs
to). A request is one frame, sometimes with a reason before or after it ("I'm cleaning up after the
migration."), so two tasks on one API rarely share their first sentence; people writing to an API
assistant seldom greet, and thank it less often still (:data:`DEVELOPER_REGISTER`).
"""

from __future__ import annotations

LIST_ASKS = (
    "which {plural} are there{owner}?", "can you show me the {plural}{owner}?", "please list the {plural}{owner}",
    "what {plural} do we have{owner}?", "pull up the {plural}{owner}", "I'd like to see the {plural}{owner}",
    "give me a rundown of the {plural}{owner}", "list every {noun}{owner}, please", "what {plural} exist{owner}?",
    "can you get me the current {plural}{owner}?", "show the {plural}{owner}", "which {plural} have been set up{owner}?",
    "could you list out the {plural}{owner}?", "I need the list of {plural}{owner}",
    "what's in place{owner} in terms of {plural}?", "enumerate the {plural}{owner} for me",
)
FILTER_ASKS = (
    "which {plural}{owner} have the {field} {value}?", "can you show me the {plural}{owner} whose {field} is {value}?",
    "list the {plural}{owner} with {field} {value}", "I only want the {plural}{owner} where the {field} is {value}",
    "find the {plural}{owner} that have {value} as their {field}", "any {plural}{owner} with the {field} {value}?",
)
COUNT_ASKS = (
    "how many {plural} are there{owner}?", "can you count the {plural}{owner} for me?",
    "what's the number of {plural}{owner}?", "how many {plural} do we have{owner}?",
    "give me a count of the {plural}{owner}", "how many {plural}{owner} are set up right now?",
    "do you know how many {plural} exist{owner}?", "count the {plural}{owner}, please",
)
GET_ASKS = (
    "what's the {field} of {target}?", "can you tell me the {field} of {target}?", "I need the {field} of {target}",
    "what {field} does {target} have?", "look up the {field} of {target} for me", "check the {field} of {target}",
    "could you find out the {field} of {target}?", "what is {target}'s {field}?", "get me the {field} for {target}",
    "do you know the {field} of {target}?",
)
DELETE_ASKS = (
    "please delete {target}", "I no longer need {target}; please remove it", "can you get rid of {target}?",
    "remove {target}", "delete {target} for me", "could you take down {target}?", "go ahead and delete {target}",
    "{target} can go now, please delete it", "I want {target} deleted", "clean up {target}, it's not needed anymore",
)
UPDATE_ASKS = (
    "please change {changes} for {target}", "can you update {target}? Set {changes}", "set {changes} on {target}",
    "update {target} so that {changes_are}", "could you change {changes} for {target}?",
    "I need {target} updated: {changes}", "on {target}, please set {changes}", "switch {changes} for {target}",
    "make {changes} on {target}", "change {target}: {changes}",
)
CREATE_ASKS = (
    "please create a new {noun} with {details}", "I'd like to add {a_noun}: {details}", "set up {a_noun} with {details}",
    "can you create {a_noun} with {details}?", "add a new {noun}, {details}", "create {a_noun} for me with {details}",
    "we need a new {noun} with {details}", "could you make {a_noun}? Use {details}", "spin up {a_noun} with {details}",
    "register a new {noun} with {details}",
)
CREATE_BARE_ASKS = (
    "please set up a new {noun} for me", "can you create a new {noun}?", "create {a_noun}, please",
    "I need a new {noun}", "add {a_noun} for me",
)
# what a user says around a request: why they ask (kept short; most requests carry none)
REASONS = {
    "list": ("I'm auditing what we have", "I'm doing some cleanup", "I need an overview before the migration",
             "my lead asked for an inventory", "I'm double-checking the setup after yesterday's deploy",
             "I'm writing up the quarterly review", "I want to make sure nothing is missing",
             "I'm onboarding onto this project", "we're planning the move to the new account",
             "I'm looking into a billing question", "I'm checking what the old team left behind"),
    "get": ("I'm debugging an issue", "I need it for a support ticket", "a customer asked about it",
            "I'm filling in the runbook", "I'm checking before I change anything", "it came up in standup",
            "I'm reviewing the config", "the dashboard looks off", "I'm preparing the handover notes"),
    "create": ("we're onboarding a new team", "it's for the new project", "we need it before the launch",
               "it's for the staging setup", "I'm setting up the pilot", "the old one is being retired",
               "it's for a demo next week", "we're splitting the workload"),
    "update": ("the old value was wrong", "we renamed the team", "it's part of the cleanup", "the owner changed",
               "we're standardising the settings", "the launch date moved", "it was set up in a hurry"),
    "delete": ("it was left over from a test", "we migrated off it", "it was created by mistake",
               "nobody has used it in months", "it's a duplicate", "we're cutting costs", "the pilot is over"),
}
REASON_SHARE = 0.35  # how often a request carries a reason
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
    "Can you forward the {noun} details to our auditor?", "Could you schedule a maintenance window with our customers?",
)
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
