
BproductJä6n»l@:5Á¸z·>µÖÀ6¿4eº