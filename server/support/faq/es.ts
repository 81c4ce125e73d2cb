/** The support page in Spanish (server/support/faq.ts). */
import type { FaqText } from "./types.ts";

export const es: FaqText = {
  language: "Español",
  title: "Ayuda y preguntas frecuentes de QCard",
  intro:
    "Respuestas a las preguntas más habituales. Esta página está guardada en su dispositivo, así que también se abre sin conexión.",
  languages: "Idioma",
  topics: [
    {
      id: "activation",
      title: "Activación",
      items: [
        [
          "¿Cómo activo QCard en mi teléfono?",
          "Su organización le envía un correo de activación con un código de 5 dígitos. Abra QCard, escriba el código en el teclado, pulse «Conectar dispositivo» y elija su PIN de 6 dígitos.",
        ],
        [
          "Mi código ha caducado o he perdido el correo. ¿Qué hago?",
          "En el teclado del PIN, pulse «Enviar correo de activación», introduzca la dirección de correo de su cuenta y responda a su pregunta secreta. Recibirá un código nuevo por correo; cada código solo sirve una vez.",
        ],
      ],
    },
    {
      id: "pin",
      title: "PIN",
      items: [
        [
          "¿Qué PIN puedo elegir?",
          "Seis dígitos. Por motivos de seguridad, QCard rechaza un dígito repetido más de tres veces seguidas, las secuencias directas como 123456 o 987654 y los patrones repetidos como 121212 o 123123.",
        ],
        [
          "¿Qué ocurre tras varios PIN incorrectos?",
          "Tras cinco PIN incorrectos seguidos, QCard borra sus datos de este dispositivo y tendrá que activarlo de nuevo. Sus solicitudes, tarjetas y recibos siguen seguros en el servidor.",
        ],
      ],
    },
    {
      id: "requests",
      title: "Solicitudes",
      items: [
        [
          "¿Cómo solicito un gasto?",
          "En el modo de solicitud, pulse «Nueva solicitud», elija el tipo, introduzca el importe (o un presupuesto para gastos recurrentes), la moneda y el motivo, y envíela. Sus aprobadores deciden nivel por nivel.",
        ],
        [
          "¿Por qué no puedo crear una solicitud?",
          "Los pagos con tarjeta cuyo recibo está atrasado necesitan primero su recibo; el indicador cuenta lo que requiere su atención. También puede que su organización no le permita crear solicitudes.",
        ],
      ],
    },
    {
      id: "cards",
      title: "Tarjetas virtuales",
      items: [
        [
          "¿Cómo obtengo una tarjeta?",
          "Abra una solicitud aceptada y pulse «Generar tarjeta». La primera vez, configure 3-D Secure: una contraseña y un número de móvil con los que se confirman los pagos en línea.",
        ],
        [
          "¿Cómo veo el número de la tarjeta?",
          "En el detalle de la tarjeta, pulse «Mostrar los datos de la tarjeta»: el número y el CVC se muestran durante 30 segundos. Congele la tarjeta para rechazar pagos hasta que la descongele.",
        ],
      ],
    },
    {
      id: "receipts",
      title: "Recibos",
      items: [
        [
          "¿Cómo añado un recibo?",
          "Abra el pago en Transacciones y pulse «Adjuntar recibo»: haga una foto o elija un archivo JPEG, PNG o PDF. Las fotos se reducen en su teléfono antes de enviarlas.",
        ],
        [
          "¿Cuándo vence un recibo?",
          "Su organización fija un número de días tras cada pago con tarjeta. Un recibo atrasado aparece en el indicador y bloquea las nuevas solicitudes hasta que se adjunte.",
        ],
      ],
    },
    {
      id: "vat",
      title: "IVA",
      items: [
        [
          "¿Cómo registro el IVA de un pago?",
          "En la transacción, indique el tipo de IVA: desconocido, sin IVA o con IVA. Si su organización pide el detalle, elija el país y hasta tres códigos de IVA; cada importe de IVA se calcula automáticamente.",
        ],
        [
          "¿Por qué no puedo cambiar el IVA?",
          "Una transacción revisada ya no se puede cambiar, y las transacciones rechazadas o trasladadas no tienen IVA.",
        ],
      ],
    },
    {
      id: "offline",
      title: "Sin conexión",
      items: [
        [
          "¿Funciona QCard sin conexión?",
          "Sí. Muestra los datos guardados en este dispositivo, cifrados con una clave derivada de su PIN. Los comentarios, notas, datos de IVA y recibos que añada sin conexión esperan en el dispositivo y se envían cuando vuelve la red.",
        ],
        [
          "¿Qué necesita conexión?",
          "La activación, aprobar o rechazar, crear una tarjeta y trasladar un pago a otro gasto: estas acciones siempre esperan la respuesta del servidor.",
        ],
      ],
    },
  ],
};
