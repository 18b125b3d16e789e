Bspeech_probsJ<pt=@+¾<ÀVM<€È*<ÀJ
<@•,<`œ<€®H<‚ËÚ>M#?Ù÷>ªÜ>C.?GK%?mªè>