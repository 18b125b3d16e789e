
Blstm_hJ“∂Ó≥ê%s1œ0Z≥