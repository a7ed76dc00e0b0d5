"""Ordinary words for the recogniser's garbage branch: what talk near the game is spelled with.

Chosen without looking at the benchmark's negatives (``benchmarks/voice_corpus.py``), so that the
false-accept figures measure talk the recogniser has never been fitted to:

* :data:`COMMON`: the 500 most frequent English words, by frequency alone (``wordfreq`` 3.1.1,
``top_n_list("en", 1300)``, keeping lowercase alphabetic words, with one apostrophe at most,
that the bundled CMU dictionary pronounces; one-letter words other than "a" and "i" dropped).
* :data:`GAME`: what is said around a card table: numbers, card names, words of play.

The recogniser adds the words of the game's own messages (``prompts/<lang>.toml``) and removes
every command word and every homophone of one, so these lists may hold them harmlessly.
"""

from __future__ import annotations

__all__ = ["COMMON", "GAME"]

COMMON = """
the to and of a in i is for that you it on with this was be as are have at he not by but from my or
we an your all so his they me if one can will just like about up out what has when more do no were
who had it's their there her which time get been would she new people how don't some also them now
other i'm its our than good only after first him into know see two make over think any then could
back these us want because go well said way most much very where even should may here need really
did right work year years being day too going before off why made still take got many never those
life say world down great through you're last that's while best such love man home long look
something use can't same used both every am come part state three around between always better find
help high little old since another does own things under during game i've thing give house place
school again next each mr without against didn't end found must show big feel sure team ever family
keep might please put money free second someone away left number city days lot name night play
until company doing few he's let real called different having set thought done however getting god
government group looking public top women business care start system times week already anything
case nothing person today change enough everything full live making point read there's told yet bad
doesn't four hard mean once support tell including music power seen states stop water based believe
call head men national small took white came far job side though try went yes actually american
later less line order party run says service country open season thank children everyone
general they're trying united using area black following law makes together war whole car face five
kind maybe per president story working course games health hope important least means news within
able book early friends i'll information local oh post thanks video young ago others social talk
court fact given guys half hand isn't level mind often single become body coming control death food
guy hours office pay problem south true we're almost history known large lost research room
several started taking university win wrong along anyone else girl john matter pretty remember air
bit friend hit needs nice playing probably saying understand yeah york class close comes i'd idea
international looks past possible wanted cause due happy human members months move question series
wait woman ask community data late leave north saw special watch won't either future light
low million morning police short stay taken age buy deal rather reason red report soon third turn
whether among check development form further heart minutes myself services yourself act although
asked child fire fun living major media phone players art behind building easy gonna market near
non plan political
"""

GAME = """
zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
thousand first second third fourth fifth point
ace king queen jack joker hearts heart clubs club diamonds diamond spades spade suit suits card
cards deck pile match matched matches guest guests player players turned turns turning onto takes
took left wins winner games round rounds pass shuffle shuffled stack
"""
